/** How a job is named and where it stands, as the list and a job's page say it. */
import type { JobRecord } from "../../../../services/cleaning/job_queue.ts";

/** "Impute · time series". */
export const kindOf = (j: Pick<JobRecord, "task" | "dtype">) =>
  `${j.task === "impute" ? "Impute" : "Detect anomalies"} · ${
    j.dtype === "tabular" ? "table" : "time series"
  }`;

/** Where a job stands for a reviewer. */
export function reviewState(j: JobRecord): { label: string; badge: string } {
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

export const Badge = ({ text, kind }: { text: string; kind: string }) =>
  kind ? <span class={`badge badge-${kind}`}>{text}</span> : <span class="muted">{text}</span>;

/** What a running job is doing, from its progress (the runner's phases: read, compute, store). */
export function progressText(j: JobRecord): string {
  if (j.status === "queued") return "Queued: waiting for a job runner to start it.";
  const pct = Math.round(j.progress * 100);
  const phase = j.progress < 0.4
    ? "reading the data"
    : j.progress < 0.8
    ? "computing"
    : "storing the results";
  return `Running, ${pct} %: ${phase}.`;
}
