/**
 * The cleaning jobs' use cases (spec 3), as the HTTP routes and the review console call them: submit a
 * job, list the new ones, read one with a page of its results, approve it.
 */
import type { Store } from "../../store/store.ts";
import type { Config } from "../../config.ts";
import { ConflictError, NotFoundError } from "../../core/errors.ts";
import { JobQueue, type JobRecord, writeBackStalled } from "./job_queue.ts";
import { readResultsPage, type ResultEntry } from "./job_results.ts";
import { approveJob, type Approver } from "./approve.ts";
import { resolveRun, type RunInput, writeBackPlan } from "./validate_run.ts";
import { rejectionEntry } from "./decision_entries.ts";
import type { Decider } from "../decisions/entry.ts";
import { type UndoAnswer, undoApproval } from "./undo_approval.ts";

/** What the use cases need: the store, Tessera's own database, and the lease a write-back holds. */
export interface CleaningDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB" | "JOB_LEASE_SECONDS">;
}

/** Who submits a job: the token's subject and client. */
export interface Submitter {
  sub: string;
  clientId: string | null;
}

/** One page (1-based) of a job's results. */
export interface ResultsPage {
  job_id: string;
  page: number;
  pages: number;
  total: number;
  items: ResultEntry[];
}

const queueOf = (deps: CleaningDeps) => new JobQueue(deps.store, deps.config.TESSERA_DB);

/** Queues the job a run request asks for, once checked against its method and dataset (InvalidInputsError). */
export async function submitJob(deps: CleaningDeps, run: RunInput, by: Submitter): Promise<JobRecord> {
  const job = await resolveRun(deps.store, deps.config.TESSERA_DB, run);
  return await queueOf(deps).create({ ...job, created_by: by.sub, client_id: by.clientId });
}

/** Every job, newest first, at most `limit` of them (the review console's list). */
export async function listJobs(deps: CleaningDeps, limit = 200): Promise<JobRecord[]> {
  return (await queueOf(deps).listAll()).slice(0, limit);
}

/** Jobs queued or running with no results stored yet, oldest first. */
export function listNewJobs(deps: CleaningDeps): Promise<JobRecord[]> {
  return queueOf(deps).listNew();
}

/** The job `jobId`; a 404 when there is none. */
export async function getJob(deps: CleaningDeps, jobId: string): Promise<JobRecord> {
  const job = await queueOf(deps).get(jobId);
  if (!job) throw new NotFoundError(`no job '${jobId}'`);
  return job;
}

/** A page of a job with results; a 404 past the last page. */
async function pageOf(deps: CleaningDeps, job: JobRecord, page: number): Promise<ResultsPage> {
  const found = await readResultsPage(deps.store, deps.config.TESSERA_DB, job, page);
  if (!found) {
    throw new NotFoundError(`page ${page} does not exist: the results have ${job.results?.pages ?? 0} pages`);
  }
  return { job_id: job.job_id, ...found };
}

/**
 * A job and one page of its results: none while it has no results, a 404 past the last page (as
 * `jobResults` answers).
 */
export async function getJobWithResults(
  deps: CleaningDeps,
  jobId: string,
  page: number,
): Promise<{ job: JobRecord; results: ResultsPage | null }> {
  const job = await getJob(deps, jobId);
  return { job, results: job.results && await pageOf(deps, job, page) };
}

/** One page of a finished job's results; a 409 while it has none, a 404 past the last page. */
export async function jobResults(deps: CleaningDeps, jobId: string, page: number): Promise<ResultsPage> {
  const job = await getJob(deps, jobId);
  if (!job.results) {
    throw new ConflictError(
      `job '${job.job_id}' is ${job.status}: it has no results${job.status === "failed" ? "" : " yet"}`,
    );
  }
  return await pageOf(deps, job, page);
}

/** An approval as asked: the job, the free key-values of `approval_info`, and who gives it. */
export interface ApprovalInput {
  jobId: string;
  approvalInfo: Record<string, unknown>;
  who: Approver;
}

/**
 * Approves a finished job and writes its results back as `approvalInfo` says (InvalidInputsError when it
 * cannot be read); approving a job whose write-back has been silent for a lease resumes it, following the
 * first approval's instructions (checked when they were given). The job as it ends.
 */
export async function approve(deps: CleaningDeps, input: ApprovalInput): Promise<JobRecord> {
  const leaseMs = deps.config.JOB_LEASE_SECONDS * 1000;
  const job = await getJob(deps, input.jobId);
  const resume = writeBackStalled(job, leaseMs, Date.now());
  const plan = writeBackPlan(job, resume ? job.approval!.approval_info : input.approvalInfo);
  return await approveJob(queueOf(deps), job, {
    info: input.approvalInfo,
    plan,
    resume,
    who: input.who,
    leaseMs,
  });
}

/** A rejection as asked: the job, why (free text, may be empty), and who gives it. */
export interface RejectionInput {
  jobId: string;
  reason: string | null;
  who: Approver;
}

/**
 * Rejects a finished job's results: the job becomes `rejected`, is never written back and can no longer
 * be approved. Only a succeeded, unapproved job can be rejected (409 otherwise, saying why); of a
 * rejection and an approval racing, exactly one is recorded, and logged in the same write. The job as it
 * ends.
 */
export async function reject(deps: CleaningDeps, input: RejectionInput): Promise<JobRecord> {
  const queue = queueOf(deps);
  const refuse = (job: JobRecord) => {
    if (job.approval) {
      throw new ConflictError(
        `job '${job.job_id}' was approved by ${job.approval.approved_by} at ${job.approval.approved_at}; ` +
          "an approved job cannot be rejected",
      );
    }
    if (job.status !== "succeeded" && job.status !== "rejected") {
      throw new ConflictError(
        `job '${job.job_id}' is ${job.status}: only a finished (succeeded) job can be rejected`,
      );
    }
    if (job.status === "rejected") {
      const r = job.rejection;
      throw new ConflictError(
        `job '${job.job_id}' was rejected already${r ? `, by ${r.rejected_by} at ${r.rejected_at}` : ""}`,
      );
    }
  };
  const job = await getJob(deps, input.jobId);
  refuse(job);
  const rejection = {
    rejected_by: input.who.sub,
    rejected_by_username: input.who.username,
    rejected_at: new Date().toISOString(),
    reason: input.reason?.trim() || null,
  };
  const rejected = await queue.reject(job._id, rejection, rejectionEntry(job, rejection));
  if (rejected) return rejected;
  refuse((await queue.get(job._id)) ?? job); // says who got there first
  throw new ConflictError(`job '${job.job_id}' changed while it was being rejected; try again`);
}

/**
 * Undoes a job's approval: its write-back taken back cell by cell, the job approvable again (or finishes
 * an undo cut short); asked again once done, the same answer. 404 without the job, 409 when not approved.
 */
export async function undo(deps: CleaningDeps, jobId: string, who: Decider): Promise<UndoAnswer> {
  const job = await getJob(deps, jobId);
  return await undoApproval(queueOf(deps), job, who, deps.config.JOB_LEASE_SECONDS * 1000);
}
