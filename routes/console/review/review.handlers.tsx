/**
 * The spatial review of a task (`/console/tasks/{name}`) and its runs. Every action is Post/Redirect/Get:
 * the settings form posts to `/review`, the handler runs the same service as the JSON API (auditTask,
 * mitigateByRelabel, mitigateByThreshold, relabelFrontier: the run is kept by the runs service) and
 * redirects to the run's own page, `/console/tasks/{name}/runs/{run_id}`, which reads it back. A refused
 * field comes back as the API's 422 `loc` and is shown next to the field, the values kept.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { formFields } from "../shared/session.ts";
import { int } from "./formats.ts";
import { runHref } from "./hrefs.ts";
import { asSentence, CANCELLED, invalidItems } from "./refusals.ts";
import { type Action, ACTIONS, errorsFromDetail, parseSettings, sentRunId } from "./settings_request.ts";
import { pendingOptions, type ShowOptions, showReview } from "./show_review.tsx";
import { writebacksOf } from "./task_writebacks.ts";
import type { PageNotice } from "./views/review_view.ts";
import { runFrontier } from "./frontier.handlers.tsx";
import type { FrontierRequest } from "../../mitigation/frontier.schemas.ts";
import { toAuditSettings } from "../../spatial/spatial.schemas.ts";
import {
  type RelabelRequest,
  type ThresholdRequest,
  toRelabelSettings,
  toThresholdSettings,
} from "../../mitigation/mitigation.schemas.ts";
import { auditTask } from "../../../services/spatial/audit.ts";
import { datasetColumns } from "../../../services/spatial/dataset_columns.ts";
import { mitigateByRelabel } from "../../../services/mitigation/relabel.ts";
import { mitigateByThreshold } from "../../../services/mitigation/threshold.ts";
import { assertTasksEnabled, getTaskDocument } from "../../../services/tasks/task_documents.ts";
import { CancelledError, ConflictError, LimitError, NotFoundError } from "../../../core/errors.ts";

export async function reviewPage(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "";
  return showReview(c, name, await pendingOptions(c, name));
}

export async function runPage(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "";
  const runId = c.req.param("run") ?? "";
  const notices: PageNotice[] = [];
  const written = c.req.query("written");
  if (written) {
    assertTasksEnabled(c.var.deps.config);
    const task = await getTaskDocument(c.var.deps, name);
    const w = writebacksOf(task, runId).find((w) => w.field === written);
    if (w) {
      notices.push({
        kind: "success",
        text: (
          <>
            Written back into <code>{written}</code>: <strong>{int(Number(w.matched))}</strong>{" "}
            records matched, <strong>{int(Number(w.modified))}</strong> modified
            {Number(w.not_found) > 0 ? `, ${int(Number(w.not_found))} not found` : ""}.
          </>
        ),
      });
    }
  }
  const pending = await pendingOptions(c, name);
  return showReview(c, name, { ...pending, runId, notices: [...pending.notices ?? [], ...notices] });
}

/** Runs the action's service with the validated body (a mitigation as run `runId`); the page it kept. */
async function runAction(
  c: Context<ConsoleEnv>,
  name: string,
  action: Action,
  body: Record<string, unknown>,
  runId?: string,
) {
  const deps = c.var.deps;
  const target = { collectionName: name, requestedBy: c.var.session.sub, request: body };
  if (action === "frontier") return await runFrontier(c, name, body as FrontierRequest);
  const mitigation = { ...target, runId };
  if (action === "audit") {
    return runHref(name, (await auditTask(deps, { ...target, ...toAuditSettings(body as never) })).run_id);
  }
  if (action === "relabel") {
    const settings = toRelabelSettings(body as RelabelRequest);
    return runHref(name, (await mitigateByRelabel(deps, { ...mitigation, ...settings })).run_id);
  }
  const settings = toThresholdSettings(body as ThresholdRequest);
  return runHref(name, (await mitigateByThreshold(deps, { ...mitigation, ...settings })).run_id);
}

export async function reviewSubmit(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "";
  const { _csrf: _, ...fields } = await formFields(c);
  const action: Action = (ACTIONS as readonly string[]).includes(fields.action)
    ? fields.action as Action
    : "audit";
  const from = fields.from || undefined;
  const again = async (o: ShowOptions) => {
    try {
      return await showReview(c, name, { ...o, runId: from });
    } catch (e) {
      if (!(e instanceof NotFoundError) || !from) throw e;
      return await showReview(c, name, o); // the run it came from is gone
    }
  };
  assertTasksEnabled(c.var.deps.config);
  const columns = await datasetColumns(c.var.deps, name);
  const parsed = parseSettings(action, fields, columns.mapping_defaults);
  if (!parsed.ok) return again({ form: { values: fields, errors: parsed.errors }, status: 422 });
  let href: string;
  try {
    href = await runAction(c, name, action, parsed.body, sentRunId(fields));
  } catch (e) {
    const items = invalidItems(e);
    if (items) return again({ form: { values: fields, errors: errorsFromDetail(items) }, status: 422 });
    if (e instanceof CancelledError) {
      return again({ form: { values: fields }, notices: [{ kind: "info", text: CANCELLED }], status: 409 });
    }
    if (e instanceof ConflictError) {
      const errors = { form: asSentence(e.message) };
      return again({ form: { values: fields, errors }, status: 409 });
    }
    if (e instanceof LimitError) {
      const errors = {
        form: `The computation was stopped: ${e.message}. Try fewer worlds or a lower work limit.`,
      };
      return again({ form: { values: fields, errors }, status: 503 });
    }
    throw e;
  }
  return c.redirect(action === "frontier" ? href : `${href}#result`, 303);
}
