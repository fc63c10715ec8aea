/** The cleaning's routes: the jobs and the start form, a job's page, its progress, its decision and undo. */
import { Hono } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { signedIn } from "../shared/session.ts";
import { needs } from "../shared/roles.ts";
import { cleaningPage, startJob } from "./cleaning.handlers.tsx";
import { approveJob, jobPage, jobProgress, rejectJob, undoJob } from "./job.handlers.tsx";
import { CLEANING } from "./hrefs.ts";

export function cleaningRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const page = signedIn();
  app.get(CLEANING, page, cleaningPage);
  app.post(CLEANING, page, needs("reviewer"), startJob);
  app.get(`${CLEANING}/jobs/:id`, page, jobPage);
  app.get(`${CLEANING}/jobs/:id/progress`, page, jobProgress);
  app.post(`${CLEANING}/jobs/:id/approve`, page, needs("steward"), approveJob);
  app.post(`${CLEANING}/jobs/:id/reject`, page, needs("steward"), rejectJob);
  app.post(`${CLEANING}/jobs/:id/undo`, page, needs("steward"), undoJob);
  return app;
}
