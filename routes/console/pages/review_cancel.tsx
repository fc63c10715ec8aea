/**
 * A running mitigation on the review page: its progress, and its Cancel button.
 *
 * The settings form is a plain POST that waits for the mitigation's answer, so the run must be named
 * before it starts: the page carries a fresh run id (`CancelRunForm`), which review.js adds to the form as
 * `run_id` when "Relabel" or "Thresholds" is sent, then shows the Cancel button (`CancelButton`: inside
 * the settings form, above its status line, but the Cancel form's through its `form` attribute) and
 * follows the run's progress (`…/runs/{run_id}/progress`, JSON, every 0.8 s, as a cleaning job's page
 * does). Cancel posts
 * `…/runs/{run_id}/cancel` (the JSON API's cancelRun) with fetch, so the page keeps waiting for the
 * mitigation's own answer, which then says it was cancelled. Without JavaScript there is no button:
 * the form runs to its end as before.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { FC } from "hono/jsx";
import type { ConsoleEnv } from "../shared/env.ts";
import { Csrf } from "../shared/components.tsx";
import { runHref } from "./review_parts.tsx";
import { taskHref } from "../shared/hrefs.ts";
import type { ConsoleSession } from "../../../services/console/sessions.ts";
import { assertTasksEnabled } from "../../../services/tasks/task_documents.ts";
import { cancelRun, runStatus } from "../../../services/spatial/live_runs.ts";

/** A run id as the services make them (services/spatial/live_runs.ts: newRunId). */
const RUN_ID = /^[0-9a-f]{24}$/;

/** The run id a review form sent for its mitigation, when it is one (else the service makes one). */
export const sentRunId = (fields: Record<string, string>) =>
  RUN_ID.test(fields.run_id ?? "") ? fields.run_id : undefined;

/** Adds the routes of a running run: its progress (JSON) and its cancel. */
export function cancelRoutes(app: Hono<ConsoleEnv>, page: MiddlewareHandler<ConsoleEnv>, run: string): void {
  app.get(`${run}/progress`, page, runProgress);
  app.post(`${run}/cancel`, page, cancelSubmit);
}

/** The id of the Cancel form, which its button names. */
const FORM_ID = "cancel-run";

/** The Cancel form of the next mitigation the page sends: its run, its progress, no control of its own. */
export const CancelRunForm: FC<{ task: string; runId: string; session: ConsoleSession }> = (p) => (
  <form
    method="post"
    action={`${runHref(p.task, p.runId)}/cancel`}
    id={FORM_ID}
    class="cancel-run"
    data-run-id={p.runId}
    data-progress={`${runHref(p.task, p.runId)}/progress`}
  >
    <Csrf session={p.session} />
  </form>
);

/** The Cancel form's button, placed in the settings form and hidden until review.js shows it. */
export const CancelButton: FC = () => (
  <div class="form-actions cancel-run-actions" hidden>
    <button type="submit" form={FORM_ID} class="btn btn-secondary">Cancel</button>
  </div>
);

/** Where a run is, as its list entry says: state, phase, the solver's objective and bound. */
async function runProgress(c: Context<ConsoleEnv>) {
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
async function cancelSubmit(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "";
  assertTasksEnabled(c.var.deps.config);
  const done = await cancelRun(c.var.deps, name, c.req.param("run") ?? "", c.var.session.sub);
  return c.redirect(`${taskHref(name)}?cancelled=${encodeURIComponent(done.run_id)}`, 303);
}
