// hono/jsx renders on the server, where a list needs no keys (a `key` would be written out as an attribute)
// deno-lint-ignore-file jsx-key
/**
 * Cleaning jobs in the console: the jobs (new, running, done), a form that starts one (dataset, a method
 * of the catalogue, columns, parameters with their defaults), and a job's page: its live progress while
 * it runs, then its results (filled cells before and after, or rows by anomaly score; for a time series a
 * chart with the filled or flagged points) and the reviewer's decision, "Approve" (the write-back) or
 * "Reject". Every step calls services/cleaning, as the JSON API does (`/run/`, `/jobs/{id}`, `/approve/`).
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { Layout } from "../shared/layout.tsx";
import {
  BackLink,
  type Column,
  DataTable,
  errorsByField,
  Facts,
  Field,
  type FormState,
  linkColumn,
  Message,
  Notice,
  PageHead,
  Panel,
  PostForm,
  render,
  SelectField,
  Submit,
  Value,
  When,
} from "../shared/components.tsx";
import { AnalysisAssets, Busy, CheckGroup, count, percent, Stats } from "../shared/analysis_parts.tsx";
import { ChartFigure, SeriesChart, utcText } from "../shared/charts.tsx";
import {
  fieldText,
  methodGroups,
  methodKey,
  methodOfKey,
  type ParamField,
  paramFields,
  paramHint,
  paramInput,
  paramsFromForm,
} from "../cleaning_params.ts";
import { formFields, pendingFormFor } from "../shared/session.ts";
import * as jobs from "../../../services/cleaning/jobs.ts";
import type { JobRecord } from "../../../services/cleaning/job_queue.ts";
import type { ResultEntry } from "../../../services/cleaning/job_results.ts";
import { currentRows, type JobSeries, jobSeries } from "../../../services/cleaning/review.ts";
import { type DatasetRecord, findDataset, listDatasets } from "../../../services/datasets/registry.ts";
import type { MethodSpec } from "../../../core/cleaning/methods.ts";
import { ConflictError, InvalidInputsError } from "../../../core/errors.ts";
import { problemItems } from "../../http/error_answers.ts";
import type { ConsoleSession } from "../../../services/console/sessions.ts";

const BASE = "/console/cleaning";
const jobHref = (id: string) => `${BASE}/jobs/${encodeURIComponent(id)}`;
const datasetHref = (name: string) => `/console/datasets/${encodeURIComponent(name)}`;
const NUMERIC = new Set(["integer", "number"]);

/** "Impute · time series". */
const kindOf = (j: Pick<JobRecord, "task" | "dtype">) =>
  `${j.task === "impute" ? "Impute" : "Detect anomalies"} · ${
    j.dtype === "tabular" ? "table" : "time series"
  }`;

/** Where a job stands for a reviewer. */
function reviewState(j: JobRecord): { label: string; badge: string } {
  if (j.status === "rejected") return { label: "rejected", badge: "rejected" };
  if (j.approval) {
    return j.approval.write_back?.state === "running"
      ? { label: "writing back", badge: "running" }
      : { label: "approved", badge: "approved" };
  }
  if (j.status === "succeeded") return { label: "awaiting review", badge: "review" };
  if (j.status === "failed") return { label: "failed", badge: "failed" };
  return { label: "—", badge: "" };
}

const Badge = ({ text, kind }: { text: string; kind: string }) =>
  kind ? <span class={`badge badge-${kind}`}>{text}</span> : <span class="muted">{text}</span>;

/** What a running job is doing, from its progress (the runner's phases: read, compute, store). */
function progressText(j: JobRecord): string {
  if (j.status === "queued") return "Queued: waiting for a job runner to start it.";
  const pct = Math.round(j.progress * 100);
  const phase = j.progress < 0.4
    ? "reading the data"
    : j.progress < 0.8
    ? "computing"
    : "storing the results";
  return `Running, ${pct} %: ${phase}.`;
}

// ---------------------------------------------------------------------------------------------------
// The list and the start form

/** A form's fields with every value of a repeated field (the columns' checkboxes). */
async function formAll(c: Context<ConsoleEnv>): Promise<Record<string, string[]>> {
  const body = await c.req.parseBody({ all: true });
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(body)) {
    out[k] = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === "string");
  }
  return out;
}

/** The start form as sent: the single fields, and the columns ticked. */
interface StartState extends FormState {
  columns?: string[];
}

/** The column a time series is most likely dated by: a name that says so, else the first text column. */
function guessDateColumn(d: DatasetRecord): string | undefined {
  const named = d.columns.find((c) => /(time|date|^ts$|^ds$|when)/i.test(c.name) && !NUMERIC.has(c.type));
  return (named ?? d.columns.find((c) => c.type === "string") ?? d.columns[0])?.name;
}

/** The columns a method can process in a dataset (the run request's default: all of them). */
function usableColumns(d: DatasetRecord, spec: MethodSpec, dateCol: string | undefined): string[] {
  return d.columns.filter((c) =>
    c.name !== "_id" && c.name !== dateCol && c.type !== "array" && c.type !== "object" &&
    (!spec.numericOnly || NUMERIC.has(c.type))
  ).map((c) => c.name);
}

/** A method's parameter: yes/no and a choice as a select, a number or a free value as an input. */
const ParamInput = ({ f, state }: { f: ParamField; state: StartState }) => {
  const field = {
    label: <code>{f.name}</code>,
    name: paramInput(f.name),
    state,
    value: fieldText(f.default),
    hint: paramHint(f),
  };
  const k = f.kind;
  if (k.type === "boolean" || k.type === "choice") {
    const options: [string, string][] = k.type === "boolean"
      ? [["true", "yes"], ["false", "no"]]
      : k.options.map((o) => [String(o), String(o)]);
    return <SelectField {...field} options={options} />;
  }
  const number = k.type === "number";
  return (
    <Field
      {...field}
      type={number ? "number" : "text"}
      attrs={number ? { inputmode: k.integer ? "numeric" : "decimal", step: k.integer ? "1" : "any" } : {}}
    />
  );
};

interface ListView {
  session: ConsoleSession;
  jobs: JobRecord[];
  datasets: DatasetRecord[];
  chosen: { data?: string; method?: string };
  dataset: DatasetRecord | null;
  spec: MethodSpec | undefined;
  start: StartState;
  runnerOff: boolean;
  notice?: { kind: "info" | "error"; text: string };
}

const JobTable = ({ label, list, progress }: { label: string; list: JobRecord[]; progress?: boolean }) => (
  <DataTable
    label={label}
    rows={list}
    columns={[
      linkColumn<JobRecord>("Job", (j) => jobHref(j.job_id), (j) => `${j.method} on ${j.data}`),
      { head: "Kind", class: "nowrap", cell: (j) => kindOf(j) },
      { head: "Columns", class: "cell", cell: (j) => j.columns.join(", ") },
      { head: "Created (UTC)", class: "nowrap", cell: (j) => <When iso={j.created_at} utc={false} /> },
      progress
        ? {
          head: "Progress",
          class: "nowrap",
          cell: (j) => (j.status === "queued" ? "queued" : `${Math.round(j.progress * 100)} %`),
        }
        : { head: "Status", class: "nowrap", cell: (j) => <Badge text={j.status} kind={j.status} /> },
      !progress && {
        head: "Review",
        class: "nowrap",
        cell: (j) => {
          const review = reviewState(j);
          return <Badge text={review.label} kind={review.badge} />;
        },
      },
    ]}
  />
);

const JobSection = (
  { id, title, list, empty, progress }: {
    id: string;
    title: string;
    list: JobRecord[];
    empty: string;
    progress?: boolean;
  },
) => (
  <section aria-labelledby={id}>
    <h2 id={id}>
      {title} <span class="muted">({list.length})</span>
    </h2>
    {list.length
      ? <JobTable label={`${title} jobs`} list={list} progress={progress} />
      : <p class="panel empty">{empty}</p>}
  </section>
);

/** Step 2 of the start form: the chosen method's columns and parameters, then "Start job". */
const StartForm = ({ v, dataset, spec }: { v: ListView; dataset: DatasetRecord; spec: MethodSpec }) => {
  const state = v.start;
  const series = spec.dtype === "timeseries";
  const dateCol = state.values?.date_col ?? guessDateColumn(dataset);
  const usable = usableColumns(dataset, spec, series ? dateCol : undefined);
  const ticked = new Set(state.columns ?? usable);
  const params = paramFields(spec);
  return (
    <PostForm
      action={BASE}
      session={v.session}
      labelledBy="start-step2"
      hidden={{ data: dataset.dataset_name, using: methodKey(spec) }}
    >
      <h3 id="start-step2">
        {`${spec.name} on ${dataset.dataset_name}`}
      </h3>
      <p class="muted">
        {kindOf(spec)}: {spec.summary}. {count(dataset.rows)} rows.
      </p>
      {state.errors?.form && <Notice kind="error">{state.errors.form}</Notice>}
      {series && (
        <SelectField
          label="Date column"
          name="date_col"
          state={state}
          value={dateCol}
          hint="The column that dates each reading: it sorts and spaces the series."
          options={dataset.columns.map((c): [string, string] => [c.name, `${c.name} (${c.type})`])}
        />
      )}
      {usable.length
        ? (
          <CheckGroup
            legend="Columns"
            name="columns"
            id="f-columns"
            hint={spec.numericOnly
              ? "Numeric columns this method can process."
              : "Columns this method can process."}
            error={state.errors?.columns}
            options={usable.map((c) => ({ value: c, label: c, checked: ticked.has(c) }))}
          />
        )
        : <Message kind="error" text={`${dataset.dataset_name} has no column ${spec.name} can process.`} />}
      {params.length > 0 && (
        <fieldset class="group">
          <legend>Parameters</legend>
          <p class="hint">Names as in scikit-learn, PyOD, pandas and ADTK; the defaults are filled in.</p>
          <div class="form-grid">
            {params.map((f) => <ParamInput f={f} state={state} />)}
          </div>
        </fieldset>
      )}
      <Submit label="Start job" disabled={!usable.length} />
      <Busy>Starting the job…</Busy>
    </PostForm>
  );
};

const CleaningPage = (v: ListView) => {
  const by = (...s: JobRecord["status"][]) => v.jobs.filter((j) => s.includes(j.status));
  const groups = methodGroups();
  const chosenMethod = v.chosen.method ?? "";
  return (
    <Layout title="Cleaning" active="cleaning" session={v.session}>
      <AnalysisAssets />
      <PageHead
        title="Cleaning"
        lede="Imputation and anomaly detection, approved by a person before anything is written."
      />
      {v.notice && <Message {...v.notice} />}
      {v.runnerOff && (
        <Message
          kind="info"
          text={
            <>
              The job runner is off on this server (<code>JOBS_ENABLED=false</code>): jobs started here wait
              until another Tessera instance runs them.
            </>
          }
        />
      )}
      <Panel id="start" title="Start a job">
        <form method="get" action={BASE} class="filters" aria-label="Choose a dataset and a method">
          <SelectField
            label="Dataset"
            name="data"
            id="choose-data"
            value={v.chosen.data ?? ""}
            state={{ errors: v.start.errors?.data ? { data: v.start.errors.data } : undefined }}
            options={[
              ["", v.datasets.length ? "Choose a dataset" : "No datasets yet"],
              ...v.datasets.map((
                d,
              ): [string, string] => [d.dataset_name, `${d.dataset_name} (${count(d.rows)} rows)`]),
            ]}
          />
          <div class="field">
            <label for="choose-method">Method</label>
            <select id="choose-method" name="using">
              <option value="" selected={!chosenMethod}>Choose a method</option>
              {groups.map((g) => (
                <optgroup label={g.label}>
                  {g.methods.map((m) => (
                    <option value={methodKey(m)} selected={methodKey(m) === chosenMethod}>
                      {`${m.name}: ${m.summary}`}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </div>
          <Submit label="Choose" kind="secondary" />
        </form>
        {v.dataset && v.spec ? <StartForm v={v} dataset={v.dataset} spec={v.spec} /> : (
          <p class="muted">
            Choose a dataset and a method, then set the columns and parameters. The job runs in the
            background; you approve its results before anything is written into the dataset.
          </p>
        )}
      </Panel>
      <JobSection
        id="jobs-new"
        title="New"
        list={by("queued")}
        empty="No job is waiting to start."
        progress
      />
      <JobSection
        id="jobs-running"
        title="Running"
        list={by("running")}
        empty="No job is running."
        progress
      />
      <JobSection
        id="jobs-done"
        title="Done"
        list={by("succeeded", "failed", "rejected")}
        empty="No job has finished yet."
      />
    </Layout>
  );
};

async function showCleaning(
  c: Context<ConsoleEnv>,
  start: StartState,
  chosen: { data?: string; method?: string },
  status: 200 | 400 | 409 | 422 = 200,
  notice?: ListView["notice"],
) {
  const deps = c.var.deps;
  const [list, datasets] = await Promise.all([
    jobs.listJobs(deps),
    listDatasets(deps.store, deps.config.TESSERA_DB),
  ]);
  const dataset = chosen.data ? datasets.find((d) => d.dataset_name === chosen.data) ?? null : null;
  const spec = methodOfKey(chosen.method);
  const errors = { ...start.errors };
  if (chosen.data && !dataset) errors.data = `There is no dataset '${chosen.data}'.`;
  const view: ListView = {
    session: c.var.session,
    jobs: list,
    datasets,
    chosen,
    dataset,
    spec,
    start: { ...start, errors },
    runnerOff: !deps.config.JOBS_ENABLED,
    notice,
  };
  return render(c, <CleaningPage {...view} />, status);
}

export async function cleaningPage(c: Context<ConsoleEnv>) {
  const pending = await pendingFormFor(c, BASE);
  if (pending) {
    return showCleaning(c, { values: pending }, { data: pending.data, method: pending.using }, 200, {
      kind: "info",
      text: "Your session had expired before the job was started, so nothing was started. " +
        "Check the columns and parameters and start it again.",
    });
  }
  return showCleaning(c, {}, {
    data: c.req.query("data") || undefined,
    method: c.req.query("using") || undefined,
  });
}

/** Where each located problem of a run request goes in the form. */
function fieldOfLoc(loc: (string | number)[]): string {
  const [, first, second] = loc;
  if (first === "params") {
    return second === "columns" || second === undefined ? "columns" : paramInput(String(second));
  }
  return String(first ?? "form");
}

export async function startJob(c: Context<ConsoleEnv>) {
  const all = await formAll(c);
  const one = (k: string) => all[k]?.at(-1) ?? "";
  const { _csrf: _, columns: __, ...rest } = Object.fromEntries(
    Object.entries(all).map(([k, v]) => [k, v.at(-1) ?? ""]),
  );
  const values: Record<string, string> = rest;
  const columns = all.columns ?? [];
  const chosen = { data: one("data") || undefined, method: one("using") || undefined };
  const spec = methodOfKey(chosen.method);
  const state = (errors: Record<string, string>) => ({ values, columns, errors });
  if (!spec) return showCleaning(c, state({ form: "Choose a method of the catalogue." }), chosen, 422);
  const fields = paramFields(spec);
  const { params, problems } = paramsFromForm(fields, values);
  if (!columns.length) problems.columns = "Choose at least one column.";
  if (Object.keys(problems).length) return showCleaning(c, state(problems), chosen, 422);
  try {
    const job = await jobs.submitJob(c.var.deps, {
      data: one("data"),
      task: spec.task,
      dtype: spec.dtype,
      method: spec.name,
      dateCol: spec.dtype === "timeseries" ? one("date_col") || null : null,
      params: { ...params, columns },
    }, { sub: c.var.session.sub, clientId: null });
    return c.redirect(jobHref(job.job_id), 303);
  } catch (e) {
    if (!(e instanceof InvalidInputsError)) throw e;
    const errors: Record<string, string> = {};
    for (const item of problemItems(e.problems)) {
      const field = fieldOfLoc(item.loc);
      const which = item.loc[1] === "params" && item.loc[2] === "columns" && typeof item.loc[3] === "number"
        ? `${columns[item.loc[3]] ?? "a column"}: `
        : "";
      errors[field] ??= `${which}${item.msg[0].toUpperCase()}${item.msg.slice(1)}`;
    }
    return showCleaning(c, state(errors), chosen, 422);
  }
}

// ---------------------------------------------------------------------------------------------------
// A job's page

interface JobView {
  session: ConsoleSession;
  job: JobRecord;
  results: jobs.ResultsPage | null;
  /** The result entries the table shows: all of the page, or a detection's flagged ones. */
  shown: ResultEntry[];
  allRows: boolean;
  now: Map<string, Record<string, unknown>>;
  series: JobSeries | null;
  dataset: DatasetRecord | null;
  approve: FormState;
  reject: FormState;
  notice?: { kind: "success" | "info" | "error"; text: string };
}

/** A number as a reviewer reads it: at most four decimals (the stored value keeps all of them). */
const readable = (v: number) => (Number.isInteger(v) ? v.toLocaleString("en") : String(Number(v.toFixed(4))));

/** A cell's value: "missing" for none, a number shortened, a date as UTC, anything else as it is. */
const Cell = ({ v, date }: { v: unknown; date?: boolean }) => {
  if (v === null || v === undefined) return <span class="missing">missing</span>;
  if (typeof v === "number" && !date) return <>{readable(v)}</>;
  if (date && (typeof v === "string" || typeof v === "number") && !Number.isNaN(new Date(v).getTime())) {
    return <When iso={new Date(v).toISOString()} />;
  }
  return <Value v={v} />;
};

/** The sum of a summary's count, which is a number or a count per column. */
const total = (v: unknown) =>
  typeof v === "number"
    ? v
    : v && typeof v === "object"
    ? Object.values(v).reduce((s: number, n) => s + (typeof n === "number" ? n : 0), 0)
    : undefined;

const Progress = ({ job }: { job: JobRecord }) => (
  <Panel
    id="progress-h"
    title="Progress"
    class="progress-box"
    attrs={{ "data-job-progress": `${jobHref(job.job_id)}/progress` }}
  >
    <noscript>
      {/* without the script, the page reloads itself every three seconds until the job has ended */}
      <meta http-equiv="refresh" content="3" />
    </noscript>
    <label for="job-progress">{`Progress of ${job.method} on ${job.data}`}</label>
    <progress
      id="job-progress"
      class="job-progress"
      max={100}
      value={Math.round(job.progress * 100)}
      aria-valuetext={progressText(job)}
    >
      {`${Math.round(job.progress * 100)} %`}
    </progress>
    <p class="progress-text" data-progress-text>{progressText(job)}</p>
    <p>
      <a href={jobHref(job.job_id)}>Refresh</a>
    </p>
  </Panel>
);

/** The time-series charts: each column the job processed (at most four), its filled or flagged points marked. */
const SeriesCharts = ({ job, series }: { job: JobRecord; series: JobSeries }) => {
  const impute = job.task === "impute";
  const shown = series.columns.slice(0, 4);
  return (
    <section aria-labelledby="chart-h">
      <h2 id="chart-h">
        {impute ? "The series with its filled readings" : "The series with its detected anomalies"}
      </h2>
      {shown.map((col, i) => {
        const marks = series.marks.filter((m) => m.column === col.name);
        const what = impute
          ? `${marks.length} filled reading${marks.length === 1 ? "" : "s"}`
          : `${marks.length} detected anomal${marks.length === 1 ? "y" : "ies"}`;
        const title = `${col.name} over time, with ${what}`;
        const t0 = series.times[0], t1 = series.times[series.times.length - 1];
        return (
          <ChartFigure
            caption={
              <>
                <strong>{title}.</strong>
                <ul class="chart-key">
                  <li>
                    <span class="swatch swatch-line"></span>
                    {col.name}
                  </li>
                  <li>
                    <span class={impute ? "swatch swatch-filled" : "swatch swatch-anomaly"}></span>
                    {impute ? "filled reading" : "detected anomaly"}
                  </li>
                </ul>
              </>
            }
          >
            <SeriesChart
              id={`series-${i}`}
              title={title}
              description={`${count(series.times.length)} readings of ${col.name} from ${utcText(t0)} to ${
                utcText(t1)
              }; ${what} marked. The table below lists them.`}
              times={series.times}
              values={col.values}
              marks={marks}
            />
          </ChartFigure>
        );
      })}
      {series.columns.length > shown.length && (
        <p class="muted">{`The first ${shown.length} of ${series.columns.length} columns are drawn.`}</p>
      )}
      {series.marksTruncated && (
        <p class="muted">{`The first ${count(series.marks.length)} points are marked.`}</p>
      )}
    </section>
  );
};

/** A result page's address, showing every row or (a detection's default) only the flagged ones. */
const resultsHref = (job: JobRecord, page: number, all: boolean) =>
  `${jobHref(job.job_id)}?page=${page}${all ? "&rows=all" : ""}#results-h`;

const Pager = ({ v, results }: { v: JobView; results: jobs.ResultsPage }) => {
  const { job, allRows } = v;
  // the flagged rows come first: past a page that ends unflagged there are none left
  const more = results.page < results.pages && (allRows || results.items.at(-1)?.label === 1);
  return results.page > 1 || more
    ? (
      <nav class="pager" aria-label="Result pages">
        {results.page > 1 && <a href={resultsHref(job, results.page - 1, allRows)}>← Previous page</a>}
        <span>{`Page ${results.page} of ${results.pages}`}</span>
        {more && <a href={resultsHref(job, results.page + 1, allRows)}>Next page →</a>}
      </nav>
    )
    : null;
};

/** The first columns of both result tables: the row's id, then its date for a time series. */
function entryColumns(v: JobView): Column<ResultEntry>[] {
  const dated = v.job.date_col;
  const id: Column<ResultEntry> = { head: "Row", rowHead: true, cell: (e) => <code>{String(e._id)}</code> };
  if (!dated) return [id];
  return [id, {
    head: dated,
    class: "nowrap",
    cell: (e) => <Cell v={v.now.get(String(e._id))?.[dated]} date />,
  }];
}

const ImputeResults = ({ v, results }: { v: JobView; results: jobs.ResultsPage }) => (
  <>
    <p class="muted">
      Each cell the job filled: its value before (missing) and after, and what the dataset holds now.
      {v.job.approval ? "" : " Until the job is approved the dataset keeps its gaps."}
    </p>
    <Pager v={v} results={results} />
    <div class="results-table">
      <DataTable
        label="Filled cells"
        rows={results.items}
        columns={[
          ...entryColumns(v),
          { head: "Column", cell: (e) => String(e.column) },
          { head: "Before", num: true, cell: (e) => <Cell v={e.original} /> },
          { head: "After", num: true, cell: (e) => <Cell v={e.value} /> },
          {
            head: "In the dataset now",
            num: true,
            cell: (e) => {
              const row = v.now.get(String(e._id));
              return row ? <Cell v={row[String(e.column)]} /> : <span class="muted">row deleted</span>;
            },
          },
        ]}
      />
    </div>
  </>
);

const DetectResults = ({ v, results }: { v: JobView; results: jobs.ResultsPage }) => {
  const { job, now } = v;
  const perColumn = results.items.some((e) => Array.isArray(e.columns));
  const shown = v.shown;
  return (
    <>
      {v.allRows
        ? (
          <p class="muted">
            Every row by its anomaly score, the most anomalous first, with its values now.{" "}
            <a href={resultsHref(job, 1, false)}>Show only the flagged rows</a>
          </p>
        )
        : (
          <p class="muted">
            {`The rows flagged as anomalies${
              results.pages > 1 ? " on this page" : ""
            }, the most anomalous first, with their values now (${count(shown.length)}).`}{" "}
            <a href={resultsHref(job, 1, true)}>Show every row by score</a>
          </p>
        )}
      <Pager v={v} results={results} />
      {shown.length === 0
        ? <p class="panel empty">No row on this page is flagged as an anomaly.</p>
        : (
          <div class="results-table">
            <DataTable
              label="Rows by anomaly score"
              rows={shown}
              columns={[
                ...entryColumns(v),
                {
                  head: "Score",
                  num: true,
                  cell: (e) => (typeof e.score === "number" ? e.score.toPrecision(4) : "—"),
                },
                {
                  head: "Anomaly",
                  cell: (e) => (e.label === 1 ? <span class="badge badge-failed">anomaly</span> : "no"),
                },
                perColumn && {
                  head: "Flagged columns",
                  cell: (e) => (Array.isArray(e.columns) ? e.columns.join(", ") : ""),
                },
                ...job.columns.map((col): Column<ResultEntry> => ({
                  head: col,
                  num: true,
                  cell: (e) => <Cell v={now.get(String(e._id))?.[col]} />,
                })),
              ]}
            />
          </div>
        )}
    </>
  );
};

const Summary = ({ job }: { job: JobRecord }) => {
  const s = job.summary ?? {};
  if (job.task === "impute") {
    const by = (s.filled_by_column ?? {}) as Record<string, number>;
    return (
      <Stats
        items={[
          ["cells filled", count(s.cells_filled)],
          ...Object.entries(by).map(([col, n]): [string, string] => [`filled in ${col}`, count(n)]),
          ["cells left missing", count(total(s.cells_unfilled))],
          ["rows", count(s.rows)],
        ]}
      />
    );
  }
  return (
    <Stats
      items={[
        ["anomalies", count(s.anomalies)],
        ["of the rows", typeof s.anomaly_rate === "number" ? percent(s.anomaly_rate) : "—"],
        ["rows", count(s.rows)],
        ["score threshold", typeof s.threshold === "number" ? s.threshold.toPrecision(4) : "—"],
      ]}
    />
  );
};

const Decision = ({ v }: { v: JobView }) => {
  const { job } = v;
  if (job.status === "rejected") {
    const r = job.rejection;
    return (
      <Panel id="decision-h" title="Rejected">
        <p>
          {`Rejected by ${r?.rejected_by_username ?? r?.rejected_by ?? "a reviewer"} `}
          <When iso={r?.rejected_at} />. Its results are never written into the dataset.
        </p>
        {r?.reason && (
          <p>
            Reason: <q>{r.reason}</q>
          </p>
        )}
      </Panel>
    );
  }
  if (job.approval) {
    const a = job.approval;
    const wb = a.write_back as Record<string, unknown>;
    return (
      <Panel id="decision-h" title="Approved">
        <p>
          {`Approved by ${a.approved_by_username ?? a.approved_by} `}
          <When iso={a.approved_at} />.
        </p>
        {wb.state === "running"
          ? <p>The results are being written into the dataset.</p>
          : wb.state === "skipped"
          ? <p>Nothing was written into the dataset (write_back: false).</p>
          : (
            <Stats
              items={[
                [job.task === "impute" ? "cells written" : "rows flagged", count(wb.cells_written)],
                ["documents changed", count(wb.modified)],
                ["cells changed since the job ran, left alone", count(wb.skipped_changed)],
                ["fields written", Array.isArray(wb.fields) ? wb.fields.join(", ") : "—"],
              ]}
            />
          )}
        {typeof a.approval_info.comment === "string" && (
          <p>
            Comment: <q>{a.approval_info.comment}</q>
          </p>
        )}
      </Panel>
    );
  }
  if (job.status !== "succeeded") return null;
  const impute = job.task === "impute";
  return (
    <Panel id="decision-h" title="Your decision">
      {v.approve.errors?.form && <Notice kind="error">{v.approve.errors.form}</Notice>}
      <div class="decisions">
        <PostForm action={`${jobHref(job.job_id)}/approve`} session={v.session} labelledBy="approve-h">
          <h3 id="approve-h">Approve and write back</h3>
          {impute
            ? (
              <>
                <SelectField
                  label="Write the filled values into"
                  name="target"
                  state={v.approve}
                  value="same_fields"
                  options={[
                    ["same_fields", "the same fields (fill the gaps)"],
                    ["new_fields", "new fields (column + suffix)"],
                  ]}
                />
                <Field
                  label="Suffix of new fields"
                  name="suffix"
                  state={v.approve}
                  value="_imputed"
                  hint="Only for new fields: temperature → temperature_imputed."
                />
              </>
            )
            : (
              <>
                <Field
                  label="Flag field"
                  name="flag_field"
                  state={v.approve}
                  value="is_anomaly"
                  hint="A new field set true or false on every row."
                />
                <Field
                  label="Score field"
                  name="score_field"
                  state={v.approve}
                  hint="Empty: the score is not written."
                />
              </>
            )}
          <Field label="Comment" name="comment" state={v.approve} hint="Optional; kept with the approval." />
          <Submit label="Approve" />
          <Busy>Writing the results into the dataset…</Busy>
        </PostForm>
        <PostForm action={`${jobHref(job.job_id)}/reject`} session={v.session} labelledBy="reject-h">
          <h3 id="reject-h">Reject</h3>
          <p class="muted">The results are never written back, and the job can no longer be approved.</p>
          <Field label="Reason" name="reason" state={v.reject} hint="Optional; kept with the rejection." />
          <Submit label="Reject" kind="danger" />
        </PostForm>
      </div>
    </Panel>
  );
};

const JobPage = (v: JobView) => {
  const { job, results } = v;
  const running = job.status === "queued" || job.status === "running";
  const { columns: _, ...params } = job.params;
  const review = reviewState(job);
  return (
    <Layout title={`${job.method} on ${job.data}`} active="cleaning" session={v.session}>
      <AnalysisAssets />
      <BackLink href={BASE}>All cleaning jobs</BackLink>
      <PageHead title={`${job.method} on ${job.data}`}>
        <p>
          <Badge text={job.status} kind={job.status} />{" "}
          {review.badge && review.label !== job.status && <Badge text={review.label} kind={review.badge} />}
        </p>
      </PageHead>
      {v.notice && <Message {...v.notice} />}
      {running && <Progress job={job} />}
      {job.status === "failed" && (
        <Message
          kind="error"
          text={`The job failed (${job.error?.type ?? "error"}): ${job.error?.message ?? "no message"}`}
        />
      )}
      <section class="panel" aria-label="About this job">
        <Facts
          items={[
            ["Kind", kindOf(job)],
            ["Method", <code>{job.method}</code>],
            [
              "Dataset",
              <>
                {v.dataset ? <a href={datasetHref(job.data)}>{job.data}</a> : job.data}
                {` (${count(job.rows)} rows when started)`}
              </>,
            ],
            ["Columns", job.columns.join(", ")],
            job.date_col && ["Date column", job.date_col],
            ["Parameters", Object.keys(params).length ? <code>{JSON.stringify(params)}</code> : "defaults"],
            ["Started by", job.created_by === v.session.sub ? `${v.session.username} (you)` : job.created_by],
            ["Created", <When iso={job.created_at} />],
            ["Ended", <When iso={job.ended_at} />],
            ["Job id", <code>{job.job_id}</code>],
          ]}
        />
      </section>
      {results && (
        <>
          <h2 id="summary-h">Results</h2>
          <Summary job={job} />
          {v.series && <SeriesCharts job={job} series={v.series} />}
          <h2 id="results-h">{job.task === "impute" ? "Filled cells" : "Rows by anomaly score"}</h2>
          {job.task === "impute"
            ? <ImputeResults v={v} results={results} />
            : <DetectResults v={v} results={results} />}
        </>
      )}
      <Decision v={v} />
    </Layout>
  );
};

const pageOf = (c: Context<ConsoleEnv>) => {
  const p = Number(c.req.query("page") ?? "1");
  return Number.isInteger(p) && p >= 1 ? p : 1;
};

async function showJob(
  c: Context<ConsoleEnv>,
  state: { approve?: FormState; reject?: FormState; notice?: JobView["notice"] } = {},
  status: 200 | 409 | 422 = 200,
) {
  const deps = c.var.deps;
  const id = c.req.param("id") ?? "";
  const { job, results } = await jobs.getJobWithResults(deps, id, pageOf(c));
  // a detection shows its flagged rows unless every row is asked for (`rows=all`)
  const allRows = job.task === "impute" || c.req.query("rows") === "all";
  const shown = (results?.items ?? []).filter((e) => allRows || e.label === 1);
  const [now, series, dataset] = await Promise.all([
    currentRows(deps, job, shown.map((e) => String(e._id))),
    jobSeries(deps, job),
    findDataset(deps.store, deps.config.TESSERA_DB, job.data),
  ]);
  const view: JobView = {
    session: c.var.session,
    job,
    results,
    shown,
    allRows,
    now,
    series,
    dataset,
    approve: state.approve ?? {},
    reject: state.reject ?? {},
    notice: state.notice,
  };
  return render(c, <JobPage {...view} />, status);
}

export async function jobPage(c: Context<ConsoleEnv>) {
  const id = c.req.param("id") ?? "";
  const pending = await pendingFormFor(c, `${jobHref(id)}/approve`);
  if (pending) {
    const { _csrf: _, ...values } = pending;
    return await showJob(c, {
      approve: { values },
      notice: {
        kind: "info",
        text: "Your session had expired before the approval was sent, so nothing was approved. " +
          "Check the values below and approve again.",
      },
    });
  }
  const notice = c.req.query("approved")
    ? { kind: "success" as const, text: "Approved: the results are written into the dataset." }
    : c.req.query("rejected")
    ? { kind: "info" as const, text: "Rejected: the results will not be written into the dataset." }
    : undefined;
  return await showJob(c, { notice });
}

/** A running job's status and progress, for the page's script (JSON; the page itself works without it). */
export async function jobProgress(c: Context<ConsoleEnv>) {
  const job = await jobs.getJob(c.var.deps, c.req.param("id") ?? "");
  c.header("Cache-Control", "no-store");
  return c.json({ status: job.status, progress: job.progress, text: progressText(job) });
}

/** The approval_info keys the write-back reads, from the approve form (empty fields: the defaults). */
function approvalInfoOf(job: JobRecord, f: Record<string, string>): Record<string, unknown> {
  const info: Record<string, unknown> = {};
  const put = (key: string) => {
    const v = f[key]?.trim();
    if (v) info[key] = v;
  };
  if (job.task === "impute") {
    put("target");
    if (f.target === "new_fields") put("suffix");
  } else {
    put("flag_field");
    put("score_field");
  }
  put("comment");
  info.source = "console";
  return info;
}

export async function approveJob(c: Context<ConsoleEnv>) {
  const { _csrf: _, ...values } = await formFields(c);
  const id = c.req.param("id") ?? "";
  const job = await jobs.getJob(c.var.deps, id);
  try {
    await jobs.approve(c.var.deps, {
      jobId: id,
      approvalInfo: approvalInfoOf(job, values),
      who: { sub: c.var.session.sub, username: c.var.session.username },
    });
  } catch (e) {
    if (e instanceof InvalidInputsError) {
      const errors = errorsByField(problemItems(e.problems).map((d) => ({ ...d, loc: d.loc.slice(1) })));
      return showJob(c, { approve: { values, errors } }, 422);
    }
    if (e instanceof ConflictError) {
      return showJob(c, { approve: { values }, notice: { kind: "error", text: e.message } }, 409);
    }
    throw e;
  }
  return c.redirect(`${jobHref(id)}?approved=1`, 303);
}

export async function rejectJob(c: Context<ConsoleEnv>) {
  const { _csrf: _, ...values } = await formFields(c);
  const id = c.req.param("id") ?? "";
  try {
    await jobs.reject(c.var.deps, {
      jobId: id,
      reason: values.reason ?? null,
      who: { sub: c.var.session.sub, username: c.var.session.username },
    });
  } catch (e) {
    if (!(e instanceof ConflictError)) throw e;
    return showJob(c, { reject: { values }, notice: { kind: "error", text: e.message } }, 409);
  }
  return c.redirect(`${jobHref(id)}?rejected=1`, 303);
}

/** Mounts the cleaning pages; `page` is the signed-in middleware (session, Origin, CSRF). */
export function cleaningPages(app: Hono<ConsoleEnv>, page: MiddlewareHandler<ConsoleEnv>): void {
  app.get(BASE, page, cleaningPage);
  app.post(BASE, page, startJob);
  app.get(`${BASE}/jobs/:id`, page, jobPage);
  app.get(`${BASE}/jobs/:id/progress`, page, jobProgress);
  app.post(`${BASE}/jobs/:id/approve`, page, approveJob);
  app.post(`${BASE}/jobs/:id/reject`, page, rejectJob);
}
