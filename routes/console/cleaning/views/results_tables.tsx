/**
 * A job's results as tables: the filled cells before and after, or the rows by anomaly score, each with
 * what the dataset holds now, a page at a time.
 */
import { type Column, DataTable, Value, When } from "../../shared/components.tsx";
import { count } from "../../shared/analysis_parts.tsx";
import { jobHref } from "../hrefs.ts";
import type { JobView } from "./job_view.ts";
import type { ResultsPage } from "../../../../services/cleaning/jobs.ts";
import type { JobRecord } from "../../../../services/cleaning/job_queue.ts";
import type { ResultEntry } from "../../../../services/cleaning/job_results.ts";

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

/** A result page's address, showing every row or (a detection's default) only the flagged ones. */
const resultsHref = (job: JobRecord, page: number, all: boolean) =>
  `${jobHref(job.job_id)}?page=${page}${all ? "&rows=all" : ""}#results-h`;

const Pager = ({ v, results }: { v: JobView; results: ResultsPage }) => {
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

export const ImputeResults = ({ v, results }: { v: JobView; results: ResultsPage }) => (
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

export const DetectResults = ({ v, results }: { v: JobView; results: ResultsPage }) => {
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
