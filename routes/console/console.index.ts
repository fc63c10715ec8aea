/**
 * The review console: server-rendered pages (hono/jsx) under /console, plain Hono routes outside
 * /openapi.json. Every page handler calls the same services as the JSON API. Sign-in is the only page
 * without a session; every other route goes through `signedIn` (session, Origin and CSRF checks).
 * A console cookie authorises nothing but these pages: the JSON API stays bearer-only.
 */
import { Hono } from "hono";
import type { MiddlewareHandler } from "hono";
import type { ConsoleEnv } from "./shared/env.ts";
import { signedIn } from "./shared/session.ts";
import { assetRoutes } from "./shared/assets.ts";
import { errorPage, notFoundPage } from "./shared/error_pages.tsx";
import { home, signInPage, signInSubmit, signOutSubmit } from "./pages/sign_in.tsx";
import { createTask, markDone, tasksPage } from "./pages/tasks.tsx";
import { reviewRoutes } from "./pages/review.tsx";
import { datasetPage, datasetsPage, uploadDataset } from "./pages/datasets.tsx";
import { datasetAnnotationPages } from "./pages/dataset_annotation.tsx";
import { cleaningPages } from "./pages/cleaning.tsx";
import { valuationPages } from "./pages/valuation.tsx";

/**
 * What a console page may load and do: only Tessera's own scripts, styles, images and frames; forms
 * post only here; no one may frame the console. A page that needs more (a map's tiles) widens it here.
 */
const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self'",
  "script-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

const securityHeaders: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  await next();
  // a response with a policy of its own keeps it (a run's HTML map: sandboxed, framed by the console)
  if (!c.res.headers.has("Content-Security-Policy")) c.header("Content-Security-Policy", CSP);
  c.header("X-Content-Type-Options", "nosniff");
  if (!c.res.headers.has("X-Frame-Options")) c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
};

/** The dataset upload: a streamed import, under the import's body limit (app.ts). */
export const CONSOLE_UPLOAD = { method: "post", path: "/console/datasets" };

/** The console's routes (mounted at `/` by app.ts: `GET /` leads into the console). */
export function consoleRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.onError(errorPage);
  app.use("/console/*", securityHeaders);
  app.use("/console", securityHeaders);

  app.get("/", (c) => c.redirect("/console/", 303)); // the session cookie is only sent under /console
  app.get("/console", (c) => c.redirect("/console/", 301));
  app.get("/console/", home);
  assetRoutes(app);
  app.get("/console/sign-in", signInPage);
  app.post("/console/sign-in", signInSubmit);

  const page = signedIn();
  app.post("/console/sign-out", page, signOutSubmit);

  app.get("/console/tasks", page, tasksPage);
  app.post("/console/tasks", page, createTask);
  reviewRoutes(app, page); // a task's page: the spatial review, its runs, maps, CSV files, write-back
  app.post("/console/tasks/:name/done", page, markDone);

  app.get("/console/datasets", page, datasetsPage);
  app.post(CONSOLE_UPLOAD.path, signedIn({ multipart: true }), uploadDataset);
  app.get("/console/datasets/:name", page, datasetPage);
  datasetAnnotationPages(app, page); // a dataset's annotation procedures and its delete

  cleaningPages(app, page);
  valuationPages(app, page);

  app.all("/console/*", page, (c) => notFoundPage(c));
  return app;
}
