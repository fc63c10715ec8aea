/** The tasks' routes: the list with its create form, and "Mark done". A task's own page is review's. */
import { Hono } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { signedIn } from "../shared/session.ts";
import { needs } from "../shared/roles.ts";
import { createTask, markDone, tasksPage } from "./tasks.handlers.tsx";

export function tasksRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const page = signedIn();
  app.get("/console/tasks", page, tasksPage);
  app.post("/console/tasks", page, needs("steward"), createTask);
  app.post("/console/tasks/:name/done", page, needs("steward"), markDone);
  return app;
}
