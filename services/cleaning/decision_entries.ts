/**
 * The decision log's entries of cleaning jobs (issue 37): an approval, a rejection and an approval's
 * undo, each with the facts that make it reproducible (what the job ran, what the reviewer asked for).
 */
import { type Decider, type DecisionEntry, newEntry } from "../decisions/entry.ts";
import type { Approval, JobRecord, Rejection } from "./job_queue.ts";
import { targetField, type WriteBackPlan } from "./writeback_plan.ts";

/** The report's numbers (cells_written, modified, restored…), as the log counts them. */
function countsOf(report: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(report).filter((kv): kv is [string, number] => typeof kv[1] === "number"),
  );
}

/** What the job ran, as its record has it: enough to run it again. */
function jobFacts(job: JobRecord): Record<string, unknown> {
  const seed = job.params.random_state;
  return {
    task: job.task,
    dtype: job.dtype,
    method: job.method,
    columns: job.columns,
    date_col: job.date_col,
    params: job.params,
    seed: typeof seed === "number" ? seed : null,
    results_attempt: job.results?.attempt ?? null,
  };
}

/** The fields every entry of `job` names: the job, its dataset and database. */
const about = (job: JobRecord) => ({ job_id: job.job_id, dataset: job.collection, database: job.database });

/** The field a plan writes when there is one (a detection's flag, an imputation into new fields). */
function fieldOf(job: JobRecord, plan: WriteBackPlan | null): string | null {
  if (!plan) return null;
  if (job.task === "detect") return plan.flagField;
  if (job.columns.length !== 1) return null;
  return targetField(plan, job.columns[0]);
}

/** The approver as the log names them (a resumed write-back stays the first approver's decision). */
export const approverOf = (a: Approval): Decider => ({
  sub: a.approved_by,
  username: a.approved_by_username,
});

/** An approval's entry, made once its write-back is done (or skipped): counts from its report. */
export function approvalEntry(job: JobRecord, approval: Approval, plan: WriteBackPlan | null): DecisionEntry {
  return newEntry("cleaning_approval", approverOf(approval), {
    ...about(job),
    field: fieldOf(job, plan),
    counts: countsOf(approval.write_back),
    facts: {
      ...jobFacts(job),
      approval_info: approval.approval_info,
      write_back: plan,
      approved_at: approval.approved_at,
    },
  });
}

/** A rejection's entry. */
export function rejectionEntry(job: JobRecord, r: Rejection): DecisionEntry {
  return newEntry("cleaning_rejection", { sub: r.rejected_by, username: r.rejected_by_username }, {
    ...about(job),
    facts: { ...jobFacts(job), reason: r.reason },
  });
}

/** An undo's entry, made once it is done: what it restored, skipped and could not restore. */
export function undoEntry(
  job: JobRecord,
  approval: Approval,
  plan: WriteBackPlan | null,
  undo: Record<string, unknown>,
): DecisionEntry {
  const by = { sub: String(undo.undone_by), username: (undo.undone_by_username ?? null) as string | null };
  const skipped = Array.isArray(undo.skipped) ? undo.skipped.length : 0;
  return newEntry("cleaning_approval_undo", by, {
    ...about(job),
    field: fieldOf(job, plan),
    counts: { ...countsOf(undo), skipped },
    facts: {
      ...jobFacts(job),
      approval_info: approval.approval_info,
      write_back: plan,
      approved_by: approval.approved_by,
      approved_at: approval.approved_at,
      skipped_ids: undo.skipped,
      fields_not_restored: undo.fields_not_restored,
      resumed_by: undo.resumed_by ?? null,
    },
  });
}
