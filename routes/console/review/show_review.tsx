/**
 * The review page as every handler shows it: what it loads (the task, its columns, its runs, the run
 * asked for, a page of its history) and the options a handler adds (form values and errors, notices,
 * the status).
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { type FormState, render } from "../shared/components.tsx";
import { taskHref } from "../shared/hrefs.ts";
import { pendingFormFor } from "../shared/session.ts";
import { runHref } from "./hrefs.ts";
import { CANCELLED } from "./refusals.ts";
import { formValues } from "./settings_request.ts";
import { sortOf } from "./sort.ts";
import type { PageNotice, ReviewView } from "./views/review_view.ts";
import type { RunListEntry } from "./views/runs_list.tsx";
import type { HistoryView } from "./views/task_history.tsx";
import { SKIPPED_SHOWN, type TaskHistory, taskHistory } from "./task_history.ts";
import { historyBefore } from "../shared/history_query.ts";
import { ReviewPage } from "./views/review_page.tsx";
import { newRunId } from "../../../services/spatial/live_runs.ts";
import { undoneWriteback } from "../../../services/mitigation/writeback_undo.ts";
import { datasetColumns } from "../../../services/spatial/dataset_columns.ts";
import { getRun, listRuns } from "../../../services/spatial/runs.ts";
import { assertTasksEnabled, getTaskDocument } from "../../../services/tasks/task_documents.ts";
import { findDataset } from "../../../services/datasets/registry.ts";

/** How the page is shown: a run, form values and errors, notices, the status. */
export interface ShowOptions {
  runId?: string;
  form?: FormState;
  writeback?: FormState;
  notices?: PageNotice[];
  status?: 200 | 404 | 409 | 422 | 503;
}

/** Loads what the page shows (the task, its columns, its runs, and the run asked for) and renders it. */
export async function showReview(c: Context<ConsoleEnv>, name: string, o: ShowOptions = {}) {
  const deps = c.var.deps;
  assertTasksEnabled(deps.config);
  const task = await getTaskDocument(deps, name);
  const [columns, runs, dataset, history] = await Promise.all([
    datasetColumns(deps, name),
    listRuns(deps, name),
    findDataset(deps.store, deps.config.TESSERA_DB, String(task.data_collection_name)),
    taskHistory(deps, name, historyBefore(c.req.query("before"))),
  ]);
  const run = o.runId ? await getRun(deps, name, o.runId, false) : undefined;
  const values = { ...formValues(columns, task, run?.run.request), ...o.form?.values };
  const notices = [...o.notices ?? []];
  const marked = c.req.query("marked");
  if (marked === name) notices.push({ kind: "success", text: `'${name}' is marked done.` });
  if (c.req.query("cancelled")) notices.push({ kind: "info", text: CANCELLED });
  const view: ReviewView = {
    session: c.var.session,
    name,
    task,
    columns,
    rows: dataset && dataset.database === task.database_name ? dataset.rows : null,
    runs: runs as RunListEntry[],
    form: { values, errors: o.form?.errors },
    run,
    sort: sortOf((k) => c.req.query(k)),
    notices,
    writeback: o.writeback ?? {},
    here: run ? runHref(name, run.run_id) : taskHref(name),
    nextRunId: newRunId(),
    history: { ...history, justUndone: await justUndone(c, name, history) },
  };
  return render(c, <ReviewPage {...view} />, o.status ?? 200);
}

/** The undo an address names (`?undone=<writeback_id>`, undo.handlers.tsx), if it was undone. */
async function justUndone(
  c: Context<ConsoleEnv>,
  name: string,
  history: TaskHistory,
): Promise<HistoryView["justUndone"]> {
  const id = c.req.query("undone");
  const entry = id === undefined ? undefined : history.undone.get(id);
  const answer = entry && await undoneWriteback(c.var.deps, name, id!);
  return answer ? { entry: entry!, skipped: answer.skipped.slice(0, SKIPPED_SHOWN) } : undefined;
}

/** The form a person sent with an ended session, kept for them: shown again, filled in, with a word. */
export async function pendingOptions(c: Context<ConsoleEnv>, name: string): Promise<ShowOptions> {
  const pending = await pendingFormFor(c, `${taskHref(name)}/review`);
  if (!pending) return {};
  const { action: _a, from: _f, ...values } = pending;
  const text = "Your session had expired before these settings were sent, so nothing ran. Check them and " +
    "select the button again.";
  return { form: { values }, notices: [{ kind: "info", text }] };
}
