/** The datasets' routes: the list and its upload, a dataset's page, its annotation and its delete. */
import { Hono } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { signedIn } from "../shared/session.ts";
import { needs } from "../shared/roles.ts";
import { datasetPage, datasetsPage, uploadDataset } from "./datasets.handlers.tsx";
import { acceptSubmit, annotationPage, deleteSubmit, runSubmit } from "./annotation.handlers.tsx";

/** The dataset upload: a streamed import, under the import's body limit (app.ts). */
export const CONSOLE_UPLOAD = { method: "post", path: "/console/datasets" };

export function datasetsRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const page = signedIn();
  app.get("/console/datasets", page, datasetsPage);
  // the upload's token is in its multipart body, which the handler reads as it streams
  app.post(CONSOLE_UPLOAD.path, signedIn({ multipart: true }), needs("steward"), uploadDataset);
  app.get("/console/datasets/:name", page, datasetPage);
  app.get("/console/datasets/:name/annotation", page, annotationPage);
  app.post("/console/datasets/:name/annotation", page, needs("reviewer"), runSubmit);
  app.post("/console/datasets/:name/annotation/accept", page, needs("reviewer"), acceptSubmit);
  app.post("/console/datasets/:name/delete", page, needs("steward"), deleteSubmit);
  return app;
}
