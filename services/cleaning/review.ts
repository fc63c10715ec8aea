/**
 * What a reviewer looks at beside a job's result pages (the review console's job page): the series a
 * time-series job ran on with the points it filled or flagged, and the current values of the rows a
 * result page names (so a reviewer sees what is in the dataset now, before and after a write-back).
 */
import type { JobRecord } from "./job_queue.ts";
import { allResults } from "./job_results.ts";
import { loadJobData } from "./job_data.ts";
import { own } from "../../core/data_keys.ts";
import type { CleaningDeps } from "./jobs.ts";

/** A point a job filled (`filled`: the value it found) or flagged (`anomaly`: the reading it flagged). */
export interface SeriesMark {
  column: string;
  /** Index into `times`. */
  row: number;
  value: number | null;
  kind: "filled" | "anomaly";
}

/** A time-series job's data in time order, as its method saw it (missing readings NaN), with its marks. */
export interface JobSeries {
  times: Float64Array;
  columns: { name: string; values: Float64Array }[];
  marks: SeriesMark[];
  /** More marks existed than `maxMarks`: only the first ones (most anomalous, or in result order) are here. */
  marksTruncated: boolean;
  /** Rows left out because their date is missing or unreadable. */
  undated: number;
}

/**
 * The series of a finished time-series job (null for a tabular one, or one without results): its
 * columns read again from the dataset, and the filled cells or flagged readings from its results. An
 * anomaly with per-column labels marks those columns; otherwise it marks every column of the job.
 */
export async function jobSeries(
  deps: CleaningDeps,
  job: JobRecord,
  maxMarks = 5000,
): Promise<JobSeries | null> {
  if (job.dtype !== "timeseries" || !job.results) return null;
  const data = await loadJobData(deps.store, job, true);
  const rowOf = new Map(data.ids.map((id, i) => [id, i]));
  const byName = new Map(data.columns.map((c) => [c.name, c.values as Float64Array]));
  const marks: SeriesMark[] = [];
  let truncated = false;
  const mark = (column: string, row: number, value: number | null, kind: SeriesMark["kind"]) => {
    if (marks.length >= maxMarks) return void (truncated = true);
    marks.push({ column, row, value, kind });
  };
  pages: for await (const items of allResults(deps.store, deps.config.TESSERA_DB, job)) {
    for (const e of items) {
      const row = rowOf.get(String(e._id));
      if (job.task === "impute") {
        if (row !== undefined) {
          mark(String(e.column), row, typeof e.value === "number" ? e.value : null, "filled");
        }
      } else {
        if (e.label !== 1) break pages; // entries come most anomalous first: the flagged ones lead
        if (row === undefined) continue;
        const columns = Array.isArray(e.columns) ? e.columns.map(String) : job.columns;
        for (const c of columns) {
          const v = byName.get(c)?.[row];
          mark(c, row, v === undefined || Number.isNaN(v) ? null : v, "anomaly");
        }
      }
      if (truncated) break pages;
    }
  }
  return {
    times: data.times!,
    columns: data.columns.map((c) => ({ name: c.name, values: c.values as Float64Array })),
    marks,
    marksTruncated: truncated,
    undated: data.undated,
  };
}

/**
 * The current fields of the job's rows with these ids (its columns and date column), by id; a row
 * deleted since is absent.
 */
export async function currentRows(
  deps: CleaningDeps,
  job: JobRecord,
  ids: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const ref = { db: job.database, collection: job.collection };
  const fields = job.date_col ? [...job.columns, job.date_col] : job.columns;
  const out = new Map<string, Record<string, unknown>>();
  const unique = [...new Set(ids)];
  // a result page holds at most 500 entries: their reads go out together (sequential gets would be
  // several times slower on either store)
  for (let i = 0; i < unique.length; i += 500) {
    const docs = await Promise.all(unique.slice(i, i + 500).map((id) => deps.store.get(ref, id)));
    for (const doc of docs) {
      if (doc) out.set(doc._id, Object.fromEntries(fields.map((f) => [f, own(doc, f) ?? null])));
    }
  }
  return out;
}
