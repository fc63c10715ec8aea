// hono/jsx renders on the server, where a list needs no keys (a `key` would be written out as an attribute)
// deno-lint-ignore-file jsx-key
/**
 * The spatial review of a task (`/console/tasks/{name}`): the settings form (mapping, audit,
 * mitigation), the open run's result, the task's earlier runs, the write-back of a mitigation with its
 * confirmation step, and "Mark done".
 *
 * Every action is Post/Redirect/Get: the form posts to `/review`, the handler runs the same service as
 * the JSON API (auditTask, mitigateByRelabel, mitigateByThreshold: the run is kept by the runs service)
 * and redirects to the run's own page, `/console/tasks/{name}/runs/{run_id}`, which reads it back. Maps
 * and CSV files are served per run from the runs service (the JSON API's map route takes only a bearer
 * token; these take the console's session). A refused field comes back as the API's 422 `loc` and is
 * shown next to the field, the values kept. A mitigation under way can be cancelled (review_cancel.tsx).
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { Child } from "hono/jsx";
import type { ConsoleEnv } from "../shared/env.ts";
import { Layout } from "../shared/layout.tsx";
import {
  BackLink,
  Facts,
  Field,
  type FormState,
  Message,
  Panel,
  PostForm,
  render,
  Status,
  Submit,
  Value,
  When,
} from "../shared/components.tsx";
import { assetUrl } from "../shared/assets.ts";
import { formFields, pendingFormFor } from "../shared/session.ts";
import { notFoundPage } from "../shared/error_pages.tsx";
import { MarkDone } from "../shared/mark_done.tsx";
import {
  type Action,
  ACTIONS,
  errorsFromDetail,
  formValues,
  parseSettings,
  SettingsForm,
} from "./review_form.tsx";
import {
  AuditResult,
  type AuditView,
  MitigationResult,
  type MitigationView,
  RunHeading,
  type RunListEntry,
  RunsList,
  type Sort,
  sortOf,
} from "./review_result.tsx";
import { int, runHref, Stats, writebackHref } from "./review_parts.tsx";
import { taskHref } from "../shared/hrefs.ts";
import { frontierRoutes, runFrontier } from "./review_frontier.tsx";
import type { FrontierRequest } from "../../mitigation/frontier.schemas.ts";
import { auditRegionsCsv, mitigationRegionsCsv, predictionsCsv, thresholdsCsv } from "../review_csv.ts";
import { CancelButton, cancelRoutes, CancelRunForm, sentRunId } from "./review_cancel.tsx";
import { newRunId } from "../../../services/spatial/live_runs.ts";
import { problemItems, type ValidationItem } from "../../http/error_answers.ts";
import { toAuditSettings } from "../../spatial/spatial.schemas.ts";
import {
  type RelabelRequest,
  type ThresholdRequest,
  toRelabelSettings,
  toThresholdSettings,
  WritebackRequest,
} from "../../mitigation/mitigation.schemas.ts";
import { auditTask } from "../../../services/spatial/audit.ts";
import { type DatasetColumns, datasetColumns } from "../../../services/spatial/dataset_columns.ts";
import { getRun, getRunMap, listRuns, RUNS_KEPT, type StoredRun } from "../../../services/spatial/runs.ts";
import { mitigateByRelabel, mitigateByThreshold } from "../../../services/mitigation/mitigate.ts";
import { planWriteback, writeBack, type WritebackPlan } from "../../../services/mitigation/writeback.ts";
import {
  assertTasksEnabled,
  getTaskDocument,
  type TaskDocument,
} from "../../../services/tasks/task_documents.ts";
import { findDataset } from "../../../services/datasets/registry.ts";
import type { ConsoleSession } from "../../../services/console/sessions.ts";
import {
  CancelledError,
  ConflictError,
  InvalidInputError,
  InvalidInputsError,
  LimitError,
  NotFoundError,
} from "../../../core/errors.ts";

/** Adds the review's routes (before the console's catch-all); `page` is the signed-in middleware. */
export function reviewRoutes(app: Hono<ConsoleEnv>, page: MiddlewareHandler<ConsoleEnv>): void {
  const run = "/console/tasks/:name/runs/:run";
  app.get("/console/tasks/:name", page, reviewPage);
  app.post("/console/tasks/:name/review", page, reviewSubmit);
  app.get(run, page, runPage);
  app.get(`${run}/maps/:map`, page, runMap);
  app.get(`${run}/regions.csv`, page, runCsv("regions"));
  app.get(`${run}/thresholds.csv`, page, runCsv("thresholds"));
  app.get(`${run}/predictions.csv`, page, runCsv("predictions"));
  app.get(`${run}/writeback`, page, writebackConfirm);
  app.post(`${run}/writeback`, page, writebackSubmit);
  frontierRoutes(app, page);
  cancelRoutes(app, page, run);
}

// ---------------------------------------------------------------------------------------------------
// The page

interface PageNotice {
  kind: "info" | "success" | "error";
  text: Child;
}

interface ReviewView {
  session: ConsoleSession;
  name: string;
  task: TaskDocument;
  columns: DatasetColumns;
  rows: number | null;
  runs: RunListEntry[];
  form: FormState;
  run?: StoredRun;
  sort: Sort;
  notices: PageNotice[];
  writeback: FormState;
  /** The path of this page (where "Mark done" comes back to). */
  here: string;
  /** The id of the next mitigation sent from this page, so that it can be cancelled (review_cancel.tsx). */
  nextRunId: string;
}

/** Who asked for a run: the subject the services record, named as the signed-in person when it is them. */
const who = (session: ConsoleSession, sub: string | null) => (sub === session.sub ? session.username : sub);

/** The fields of a task document shown in its details, in this order; any others follow. */
const FIELD_ORDER = ["data_collection_name", "database_name", "status", "component", "pipeline_name"];

const TaskFacts = ({ task }: { task: TaskDocument }) => {
  const keys = [
    ...FIELD_ORDER.filter((k) => k in task),
    ...Object.keys(task).filter((k) => !FIELD_ORDER.includes(k)).sort(),
  ];
  return (
    <details class="panel task-doc">
      <summary>Task document</summary>
      <Facts
        items={keys.map((k) => [
          k,
          k === "status"
            ? <Status status={String(task[k])} />
            : k.endsWith("_at")
            ? <When iso={task[k]} />
            : <Value v={task[k]} />,
        ])}
      />
    </details>
  );
};

/** The task's write-backs of one run, newest first, from the task document's history. */
function writebacksOf(task: TaskDocument, runId: string) {
  const all = Array.isArray(task.writebacks) ? task.writebacks as Record<string, unknown>[] : [];
  return all.filter((w) => w.run_id === runId).reverse();
}

const WritebackPanel = ({ v, run }: { v: ReviewView; run: StoredRun }) => {
  const done = writebacksOf(v.task, run.run_id);
  const records = run.run.summary.n_predictions;
  return (
    <Panel id="writeback-title" anchor="writeback" title="Write back">
      <p>
        Writes this run's final predictions into a new field of the collection's documents:{" "}
        {typeof records === "number" ? <strong>{int(records)}</strong> : "every"} record
        {records === 1 ? "" : "s"}
        {run.run.kind === "threshold" ? " (the test part)" : ""}. You confirm before anything is written.
      </p>
      <Message kind="error" text={v.writeback.errors?.form} />
      <form method="get" action={writebackHref(v.name, run.run_id)} class="inline-fields">
        <Field
          label="New field"
          name="new_field"
          state={v.writeback}
          value=""
          autocomplete="off"
          attrs={{ spellcheck: false }}
          hint="Letters, digits and _, not starting with a digit"
        />
        <Submit label="Write back" />
      </form>
      {done.length > 0 && (
        <ul class="writebacks">
          {done.map((w) => (
            <li>
              Field <code>{String(w.field)}</code> written <When iso={w.at} />: {int(Number(w.matched))}{" "}
              matched, {int(Number(w.modified))} modified
              {Number(w.not_found) > 0 && <>, {int(Number(w.not_found))} not found</>}.
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
};

const ResultPanel = ({ v }: { v: ReviewView }) => {
  const run = v.run;
  if (!run) {
    const latest = v.runs[0];
    return (
      <Panel id="result-title" anchor="result" title="Result">
        <p class="muted">
          {latest
            ? (
              <>
                No run open. <a href={runHref(v.name, latest.run_id)}>Open the latest run</a> or start one.
              </>
            )
            : "No run yet. Choose the settings and select “Run audit” to see where the model treats places differently."}
        </p>
      </Panel>
    );
  }
  const request = (run.run.request ?? {}) as { equal_opp?: boolean };
  const equalOpp = request.equal_opp !== false;
  return (
    <Panel id="result-title" anchor="result">
      <RunHeading run={run.run} by={who(v.session, run.run.requested_by)} />
      {run.run.kind === "audit"
        ? (
          <AuditResult
            task={v.name}
            runId={run.run_id}
            a={run.answer as unknown as AuditView}
            sort={v.sort}
            equalOpp={equalOpp}
          />
        )
        : (
          <MitigationResult
            task={v.name}
            runId={run.run_id}
            kind={run.run.kind}
            m={run.answer as unknown as MitigationView}
            sort={v.sort}
            equalOpp={equalOpp}
          />
        )}
    </Panel>
  );
};

const ReviewPage = (v: ReviewView) => {
  const empty = v.columns.sampled === 0;
  const by = (r: RunListEntry) => ({ ...r, requested_by: who(v.session, r.requested_by) });
  return (
    <Layout title={v.run ? `${v.name}: run` : v.name} active="tasks" session={v.session}>
      <link rel="stylesheet" href={assetUrl("review.css")} />
      <script type="module" src={assetUrl("review.js")}></script>
      <BackLink href="/console/tasks" class="crumbs">All tasks</BackLink>
      <div class="page-head">
        <div class="title-line">
          <h1>{v.name}</h1>
          <Status status={String(v.task.status)} />
        </div>
        {v.task.status !== "done" && <MarkDone session={v.session} name={v.name} back={v.here} />}
      </div>
      <p class="muted task-line">
        Spatial review of collection <code>{v.task.data_collection_name}</code> in database{" "}
        <code>{v.task.database_name}</code>
        {v.rows !== null && <>{" · "}{int(v.rows)} records</>}
        {v.task.pipeline_name && <>{" · "}pipeline {String(v.task.pipeline_name)}</>}
      </p>
      {v.notices.map((n) => <Message {...n} />)}
      {empty
        ? (
          <>
            <Message
              kind="info"
              text={
                <>
                  The collection <code>{v.task.data_collection_name}</code> of database{" "}
                  <code>{v.task.database_name}</code>{" "}
                  has no documents yet: there is nothing to review. Import them on the{" "}
                  <a href="/console/datasets">Datasets</a> page (same database and name).
                </>
              }
            />
            <TaskFacts task={v.task} />
          </>
        )
        : (
          <div class="review">
            <section class="panel review-side" aria-labelledby="settings-title">
              <SettingsForm
                task={v.name}
                session={v.session}
                columns={v.columns}
                state={v.form}
                runId={v.run?.run_id}
                rows={v.rows}
              >
                <CancelButton />
              </SettingsForm>
              <CancelRunForm task={v.name} runId={v.nextRunId} session={v.session} />
            </section>
            <div class="review-main">
              <ResultPanel v={v} />
              {v.run && v.run.run.kind !== "audit" && <WritebackPanel v={v} run={v.run} />}
              {v.run?.run.kind === "audit" && <Message kind="error" text={v.writeback.errors?.form} />}
              {v.run?.run.kind === "audit" && (
                <p class="hint">
                  Write-back takes a mitigation's predictions: run “Relabel” or “Thresholds” to get one.
                </p>
              )}
              <RunsList task={v.name} runs={v.runs.map(by)} current={v.run?.run_id} kept={RUNS_KEPT} />
              <TaskFacts task={v.task} />
            </div>
          </div>
        )}
    </Layout>
  );
};

/** How the page is shown: a run, form values and errors, notices, the status. */
interface ShowOptions {
  runId?: string;
  form?: FormState;
  writeback?: FormState;
  notices?: PageNotice[];
  status?: 200 | 409 | 422 | 503;
}

/** Loads what the page shows (the task, its columns, its runs, and the run asked for) and renders it. */
async function showReview(c: Context<ConsoleEnv>, name: string, o: ShowOptions = {}) {
  const deps = c.var.deps;
  assertTasksEnabled(deps.config);
  const task = await getTaskDocument(deps, name);
  const [columns, runs, dataset] = await Promise.all([
    datasetColumns(deps, name),
    listRuns(deps, name),
    findDataset(deps.store, deps.config.TESSERA_DB, String(task.data_collection_name)),
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
  };
  return render(c, <ReviewPage {...view} />, o.status ?? 200);
}

/** The form a person sent with an ended session, kept for them: shown again, filled in, with a word. */
async function pendingOptions(c: Context<ConsoleEnv>, name: string): Promise<ShowOptions> {
  const pending = await pendingFormFor(c, `${taskHref(name)}/review`);
  if (!pending) return {};
  const { action: _a, from: _f, ...values } = pending;
  const text = "Your session had expired before these settings were sent, so nothing ran. Check them and " +
    "select the button again.";
  return { form: { values }, notices: [{ kind: "info", text }] };
}

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

// ---------------------------------------------------------------------------------------------------
// Running an audit or a mitigation

/** The 422 items of a refused request (null for any other error). */
function invalidItems(e: unknown): ValidationItem[] | null {
  if (e instanceof InvalidInputError) return [{ loc: e.loc, msg: e.message, type: e.type }];
  if (e instanceof InvalidInputsError) return problemItems(e.problems);
  return null;
}

/** What the page says of a mitigation cancelled while it ran. */
const CANCELLED = "The mitigation was cancelled before it finished: nothing of it was kept.";

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
      const errors = { form: `${e.message[0].toUpperCase()}${e.message.slice(1)}.` };
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

// ---------------------------------------------------------------------------------------------------
// Maps and CSV files of a run

/**
 * One map of a run. An HTML map is a page of its own (Leaflet and the data inlined, with its own
 * policy): served sandboxed (scripts run, in an origin of their own, so it can reach nothing of the
 * console) and frameable only by the console's pages.
 */
export async function runMap(c: Context<ConsoleEnv>) {
  assertTasksEnabled(c.var.deps.config);
  const map = await getRunMap(
    c.var.deps,
    c.req.param("name") ?? "",
    c.req.param("run") ?? "",
    c.req.param("map") ?? "",
  );
  const cache = { "cache-control": "private, max-age=86400" }; // a run never changes
  if (map.format === "png") return c.body(map.bytes, 200, { "content-type": "image/png", ...cache });
  return c.body(map.text, 200, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": "sandbox allow-scripts; frame-ancestors 'self'",
    "x-frame-options": "SAMEORIGIN",
    ...cache,
  });
}

type CsvFile = "regions" | "thresholds" | "predictions";

function runCsv(file: CsvFile) {
  return async (c: Context<ConsoleEnv>) => {
    const name = c.req.param("name") ?? "";
    assertTasksEnabled(c.var.deps.config);
    const { run_id, run, answer } = await getRun(c.var.deps, name, c.req.param("run") ?? "", false);
    const m = answer as unknown as MitigationView;
    let text: string | null = null;
    if (file === "regions") {
      text = run.kind === "audit" ? auditRegionsCsv(answer as unknown as AuditView) : mitigationRegionsCsv(m);
    } else if (file === "thresholds" && run.kind === "threshold") text = thresholdsCsv(m);
    else if (file === "predictions" && run.kind !== "audit") {
      text = predictionsCsv(answer.mitigated_preds as Parameters<typeof predictionsCsv>[0]);
    }
    if (text === null) return notFoundPage(c, `This ${run.kind} run has no ${file} to download.`);
    return c.body(text, 200, {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${name}-${run.kind}-${run_id}-${file}.csv"`,
      "cache-control": "private, max-age=86400",
    });
  };
}

// ---------------------------------------------------------------------------------------------------
// Write-back: the field, a confirmation, then the write

/** Where a write-back's refusal is shown: a field's message next to "New field", anything else above it. */
function writebackErrors(e: unknown): { state: FormState["errors"]; status: 409 | 422 } | null {
  const items = invalidItems(e);
  if (items) return { state: { new_field: items.map((i) => i.msg).join("; ") }, status: 422 };
  if (e instanceof ConflictError) {
    return { state: { form: `${e.message[0].toUpperCase()}${e.message.slice(1)}.` }, status: 409 };
  }
  return null;
}

const ConfirmPage = (
  v: { session: ConsoleSession; name: string; run: string; field: string; plan: WritebackPlan; kind: string },
) => {
  const keep = v.plan.records - v.plan.changed;
  return (
    <Layout title={`Write back into ${v.field}`} active="tasks" session={v.session}>
      <link rel="stylesheet" href={assetUrl("review.css")} />
      <BackLink href={`${runHref(v.name, v.run)}#writeback`} class="crumbs">Back to the run</BackLink>
      <h1>Confirm the write-back</h1>
      <Panel
        id="confirm-title"
        class="confirm"
        title={
          <>
            Field <code>{v.field}</code> of <code>{v.name}</code>
          </>
        }
      >
        <Stats
          label="What will be written"
          items={[
            {
              label: "Records that get the field",
              value: int(v.plan.records),
              note: v.kind === "threshold" ? "the test part of the run" : "every individual the run judged",
            },
            {
              label: "Change from the original prediction",
              value: int(v.plan.changed),
              note: `${int(keep)} keep their prediction`,
            },
          ]}
        />
        {v.plan.replaces && (
          <Message
            kind="info"
            text={
              <>
                An earlier write-back of this task created <code>{v.field}</code>: its values are replaced.
              </>
            }
          />
        )}
        <PostForm
          action={writebackHref(v.name, v.run)}
          session={v.session}
          class="form-actions"
          hidden={{ new_field: v.field }}
        >
          <button type="submit" class="btn" data-busy="Writing…">Confirm</button>
          <a href={`${runHref(v.name, v.run)}#writeback`}>Cancel</a>
        </PostForm>
      </Panel>
    </Layout>
  );
};

/** Shows the run page with the write-back form's values and errors. */
function writebackRefused(c: Context<ConsoleEnv>, name: string, runId: string, field: string, e: unknown) {
  const refused = writebackErrors(e);
  if (!refused) throw e;
  return showReview(c, name, {
    runId,
    writeback: { values: { new_field: field }, errors: refused.state },
    status: refused.status,
  });
}

export async function writebackConfirm(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "", runId = c.req.param("run") ?? "";
  const field = (c.req.query("new_field") ?? "").trim();
  const checked = WritebackRequest.safeParse({ new_field: field, run_id: runId });
  if (!checked.success) {
    const msg = field === ""
      ? "Enter the name of the new field."
      : "Use letters, digits and _ (at most 128), not starting with a digit.";
    return writebackRefused(c, name, runId, field, new InvalidInputError(msg, ["body", "new_field"]));
  }
  assertTasksEnabled(c.var.deps.config);
  let plan: WritebackPlan;
  try {
    plan = await planWriteback(c.var.deps, { collectionName: name, newField: field, runId });
  } catch (e) {
    return writebackRefused(c, name, runId, field, e);
  }
  const { run } = await getRun(c.var.deps, name, runId, false);
  return render(
    c,
    <ConfirmPage session={c.var.session} name={name} run={runId} field={field} plan={plan} kind={run.kind} />,
  );
}

export async function writebackSubmit(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "", runId = c.req.param("run") ?? "";
  const field = ((await formFields(c)).new_field ?? "").trim();
  const checked = WritebackRequest.safeParse({ new_field: field, run_id: runId });
  if (!checked.success) {
    const e = new InvalidInputError("Use letters, digits and _, not starting with a digit.", [
      "body",
      "new_field",
    ]);
    return writebackRefused(c, name, runId, field, e);
  }
  assertTasksEnabled(c.var.deps.config);
  try {
    await writeBack(c.var.deps, {
      collectionName: name,
      newField: field,
      requestedBy: c.var.session.sub,
      runId,
    });
  } catch (e) {
    return writebackRefused(c, name, runId, field, e);
  }
  return c.redirect(`${runHref(name, runId)}?written=${encodeURIComponent(field)}#writeback`, 303);
}
