/**
 * A running mitigation: its progress (JSON, every 0.8 s, for review.js) and its cancel, which posts to the
 * JSON API's cancelRun with fetch, so the page keeps waiting for the mitigation's own answer, which then
 * says it was cancelled.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { taskHref } from "../shared/hrefs.ts";
import { assertTasksEnabled } from "../../../services/tasks/task_documents.ts";
import { cancelRun, runStatus } from "../../../services/spatial/live_runs.ts";

/** Where a run is, as its list entry says: state, phase, the solver's objective and bound. */
export async function runProgress(c: Context<ConsoleEnv>) {
  assertTasksEnabled(c.var.deps.config);
  const entry = await runStatus(c.var.deps, c.req.param("name") ?? "", c.req.param("run") ?? "");
  const { run_id, kind, state, phase, objective, bound } = entry;
  c.header("Cache-Control", "no-store");
  return c.json({
    run_id,
    kind,
    state,
    phase: phase ?? null,
    objective: objective ?? null,
    bound: bound ?? null,
  });
}

/** Cancels a running mitigation, then shows the task's page (review.js stays on the page instead). */
export async function cancelSubmit(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "";
  assertTasksEnabled(c.var.deps.config);
  const done = await cancelRun(c.var.deps, name, c.req.param("run") ?? "", c.var.session.sub);
  return c.redirect(`${taskHref(name)}?cancelled=${encodeURIComponent(done.run_id)}`, 303);
}
