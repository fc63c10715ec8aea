/**
 * The review's routes: a task's page and its settings form, its runs with their maps, CSV files, report
 * and write-back, the budget frontier, a running mitigation's progress and cancel, and a write-back's undo.
 */
import { Hono } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { signedIn } from "../shared/session.ts";
import { needs } from "../shared/roles.ts";
import { reviewPage, reviewSubmit, runPage } from "./review.handlers.tsx";
import { runCsv, runMap, runReportPage } from "./run_files.handlers.ts";
import { writebackConfirm, writebackSubmit } from "./writeback.handlers.tsx";
import { frontierPage } from "./frontier.handlers.tsx";
import { cancelSubmit, runProgress } from "./cancel.handlers.ts";
import { undoConfirm, undoSubmit } from "./undo.handlers.tsx";

export function reviewRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const page = signedIn();
  const run = "/console/tasks/:name/runs/:run";
  app.get("/console/tasks/:name", page, reviewPage);
  app.post("/console/tasks/:name/review", page, needs("reviewer"), reviewSubmit);
  app.get(run, page, runPage);
  app.get(`${run}/maps/:map`, page, runMap);
  app.get(`${run}/regions.csv`, page, runCsv("regions"));
  app.get(`${run}/thresholds.csv`, page, runCsv("thresholds"));
  app.get(`${run}/predictions.csv`, page, runCsv("predictions"));
  app.get(`${run}/report`, page, runReportPage);
  app.get(`${run}/writeback`, page, needs("steward"), writebackConfirm);
  app.post(`${run}/writeback`, page, needs("steward"), writebackSubmit);
  app.get("/console/tasks/:name/frontier", page, frontierPage);
  app.get(`${run}/progress`, page, runProgress);
  app.post(`${run}/cancel`, page, needs("reviewer"), cancelSubmit);
  app.get("/console/tasks/:name/writebacks/:writeback/undo", page, needs("steward"), undoConfirm);
  app.post("/console/tasks/:name/writebacks/:writeback/undo", page, needs("steward"), undoSubmit);
  return app;
}
