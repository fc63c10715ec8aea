/**
 * Between documents and typed columns for a cleaning job: stream the dataset once into columns (sorted
 * by `date_col` for a time series), and turn the method's output back into result entries keyed by the
 * documents' ids, with a summary for the job record.
 */
import type { Store } from "../../store/store.ts";
import type { JobRecord } from "./job_queue.ts";
import type { ResultEntry } from "./job_results.ts";
import type { Cell } from "../../core/cleaning/stats.ts";
import type { TableColumn } from "../../core/cleaning/impute_tabular.ts";
import type { CleaningOutput } from "../../core/cleaning/run.ts";
import { own, setOwn } from "../../core/data_keys.ts";

/** A job's data as the methods want it, with each row's document id and the values they will replace. */
export interface JobData {
  ids: string[];
  columns: TableColumn[];
  times?: Float64Array;
  /** Per column: the stored value of each cell the methods see as missing (undefined: the field is absent). */
  originals: Map<string, Map<number, unknown>>;
  /** Time series rows left out because their date is missing or unreadable. */
  undated: number;
}

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);
const isCell = (v: unknown): v is Cell => v === null || ["string", "number", "boolean"].includes(typeof v);

/** A date cell as ms since the epoch: an ISO-8601 (or other Date.parse-able) string, or whole ms. */
export function parseDate(v: unknown): number {
  if (typeof v === "number") return Number.isInteger(v) ? v : NaN; // a fraction is a measurement, not a time
  return typeof v === "string" ? Date.parse(v) : NaN;
}

/**
 * Streams the job's columns out of its dataset. A column becomes numbers (anything else missing) when
 * the method is numeric or every present value is a number; else it stays cells.
 */
export async function loadJobData(
  store: Store,
  job: JobRecord,
  numericOnly: boolean,
  onRows: (rows: number) => Promise<void> = () => Promise.resolve(),
): Promise<JobData> {
  const fields = job.date_col ? [...job.columns, job.date_col] : job.columns;
  const ids: string[] = [];
  const raw: unknown[][] = job.columns.map(() => []);
  const dates: number[] = [];
  for await (
    const batch of store.stream({ db: job.database, collection: job.collection }, { projection: fields })
  ) {
    for (const doc of batch) {
      ids.push(doc._id);
      job.columns.forEach((c, j) => raw[j].push(own(doc, c)));
      if (job.date_col) dates.push(parseDate(own(doc, job.date_col)));
    }
    await onRows(ids.length);
  }
  let order = ids.map((_, i) => i);
  let undated = 0;
  if (job.date_col) {
    order = order.filter((i) => !Number.isNaN(dates[i])).sort((a, b) => dates[a] - dates[b] || a - b);
    undated = ids.length - order.length;
  }
  const originals = new Map<string, Map<number, unknown>>();
  const columns = job.columns.map((name, j): TableColumn => {
    const cells = order.map((i) => raw[j][i]);
    const missing = new Map<number, unknown>();
    originals.set(name, missing);
    if (numericOnly || cells.every((v) => v === null || v === undefined || isNumber(v))) {
      return {
        name,
        values: Float64Array.from(cells, (v, r) => {
          if (isNumber(v)) return v;
          missing.set(r, v);
          return NaN;
        }),
      };
    }
    return {
      name,
      values: cells.map((v, r) => {
        if (v !== null && isCell(v)) return v;
        missing.set(r, v);
        return null;
      }),
    };
  });
  return {
    ids: order.map((i) => ids[i]),
    columns,
    times: job.date_col ? Float64Array.from(order, (i) => dates[i]) : undefined,
    originals,
    undated,
  };
}

const num = (v: number) => (Number.isFinite(v) ? v : null);

/**
 * Result entries and summary of an imputation: one entry per filled cell, with the value it replaces;
 * a null `original` says by `original_absent` whether the field was absent or held null.
 */
function imputationResults(data: JobData, out: Extract<CleaningOutput, { task: "impute" }>) {
  const entries: ResultEntry[] = [];
  const filledBy: Record<string, number> = {};
  for (const f of out.filled) {
    setOwn(filledBy, f.column, f.rows.length);
    const originals = data.originals.get(f.column)!;
    f.rows.forEach((r, k) => {
      const original = originals.get(r);
      const entry: ResultEntry = {
        _id: data.ids[r],
        column: f.column,
        value: f.values[k],
        original: original ?? null,
      };
      // absent and null both show as null: the undo restores which it was (undo.ts)
      if (original === null || original === undefined) entry.original_absent = original === undefined;
      entries.push(entry);
    });
  }
  const summary = {
    rows: data.ids.length,
    cells_filled: entries.length,
    filled_by_column: filledBy,
    cells_unfilled: out.unfilled,
  };
  return { entries, summary };
}

/** Result entries and summary of a detection: every row with label and score, most anomalous first. */
function detectionResults(data: JobData, out: Extract<CleaningOutput, { task: "detect" }>) {
  const n = data.ids.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => {
    const sa = Number.isNaN(out.scores[a]) ? -Infinity : out.scores[a];
    const sb = Number.isNaN(out.scores[b]) ? -Infinity : out.scores[b];
    return sb - sa || a - b;
  });
  const perColumn = out.columnLabels.length > 1;
  const entries = order.map((i): ResultEntry => {
    const e: ResultEntry = { _id: data.ids[i], label: out.labels[i], score: num(out.scores[i]) };
    if (perColumn) e.columns = out.columns.filter((_, j) => out.columnLabels[j][i]);
    return e;
  });
  const anomalies = out.labels.reduce((s, l) => s + l, 0);
  const summary = {
    rows: n,
    anomalies,
    anomaly_rate: n ? anomalies / n : 0,
    threshold: num(out.threshold),
    max_score: entries.length ? entries[0].score : null,
  };
  return { entries, summary };
}

/** The entries a reviewer pages through and the summary the job record keeps. */
export function resultsOf(data: JobData, out: CleaningOutput) {
  const { entries, summary } = out.task === "impute"
    ? imputationResults(data, out)
    : detectionResults(data, out);
  const extra = data.times ? { rows_without_date: data.undated } : {};
  return { entries, summary: { ...summary, columns: data.columns.map((c) => c.name), ...extra } };
}
