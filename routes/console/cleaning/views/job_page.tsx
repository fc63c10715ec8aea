// hono/jsx renders on the server, where a list needs no keys (a `key` would be written out as an attribute)
// deno-lint-ignore-file jsx-key
/**
 * A job's page: its live progress while it runs, then its results (filled cells before and after, or rows
 * by anomaly score; for a time series a chart with the filled or flagged points) and the decision.
 */
import { Layout } from "../../shared/layout.tsx";
import { BackLink, Facts, Message, PageHead, Panel, When } from "../../shared/components.tsx";
import { AnalysisAssets, count, percent, Stats } from "../../shared/analysis_parts.tsx";
import { datasetHref } from "../../shared/hrefs.ts";
import { CLEANING, jobHref } from "../hrefs.ts";
import { Badge, kindOf, progressText, reviewState } from "./job_parts.tsx";
import type { JobView } from "./job_view.ts";
import { DetectResults, ImputeResults } from "./results_tables.tsx";
import { SeriesCharts } from "./series_charts.tsx";
import { Decision } from "./job_decision.tsx";
import { UndoneApprovals } from "./undo_parts.tsx";
import type { JobRecord } from "../../../../services/cleaning/job_queue.ts";

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

export const JobPage = (v: JobView) => {
  const { job, results } = v;
  const running = job.status === "queued" || job.status === "running";
  const { columns: _, ...params } = job.params;
  const review = reviewState(job);
  return (
    <Layout title={`${job.method} on ${job.data}`} active="cleaning" session={v.session}>
      <AnalysisAssets />
      <BackLink href={CLEANING}>All cleaning jobs</BackLink>
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
      <UndoneApprovals v={v} />
    </Layout>
  );
};
