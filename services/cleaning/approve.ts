/**
 * Approving a finished cleaning job: the approval is recorded by compare-and-set (so of two reviewers
 * only one approves), then its write-back runs under a fencing owner; an approval that finds a
 * write-back silent for a lease resumes it with the first approval's own instructions. Every race lost
 * to another approval is a 409, never a half-recorded approval. The approval is logged (issue 37) in
 * the compare-and-set that records its write-back done, or in its own when nothing is written back.
 */
import type { Approval, JobQueue, JobRecord } from "./job_queue.ts";
import { runWriteBack } from "./writeback.ts";
import type { WriteBackPlan } from "./writeback_plan.ts";
import { ConflictError } from "../../core/errors.ts";
import { approvalEntry } from "./decision_entries.ts";

/** Who approves. */
export interface Approver {
  sub: string;
  username: string | null;
}

/** An approval as asked: its free key-values and the write-back they describe (null: none). */
export interface ApprovalRequest {
  info: Record<string, unknown>;
  plan: WriteBackPlan | null;
  /**
   * The job's write-back was found silent for a lease (`writeBackStalled`): take it over and run it
   * again with `plan`, which is then the first approval's; `info` is not recorded.
   */
  resume: boolean;
  who: Approver;
  leaseMs: number;
}

/** Approves `job`, or resumes its stalled write-back, and runs the write-back; the job as it ends. */
export async function approveJob(
  queue: JobQueue,
  job: JobRecord,
  request: ApprovalRequest,
): Promise<JobRecord> {
  const { plan, who, leaseMs } = request;
  const at = new Date().toISOString();
  const owner = crypto.randomUUID();
  if (request.resume) {
    const old = job.approval!;
    const write_back = { ...old.write_back, heartbeat_at: at, resumed_at: at, resumed_by: who.sub };
    const approval = { ...old, write_back };
    // the compare-and-set expects the job as read: a heartbeat since then makes this a 409, not a takeover
    const taken = await queue.takeOverWriteBack(job, owner, approval);
    if (!taken) throw await lostRace(queue, job, leaseMs);
    const done = await runWriteBack(queue, taken, plan!, owner, approval, leaseMs);
    return { ...taken, approval: done };
  }
  refuseApproval(job, leaseMs);
  const approval: Approval = {
    approved_by: who.sub,
    approved_by_username: who.username,
    approved_at: at,
    approval_info: request.info,
    write_back: plan ? { state: "running", started_at: at, heartbeat_at: at } : { state: "skipped" },
  };
  // an approval that writes nothing back is logged now; one that does, once its write-back is done
  const entry = plan ? null : approvalEntry(job, approval, null);
  const approved = await queue.approve(job._id, approval, plan ? owner : null, entry);
  if (!approved) throw await lostRace(queue, job, leaseMs);
  const done = plan ? await runWriteBack(queue, approved, plan, owner, approval, leaseMs) : approval;
  return { ...approved, approval: done };
}

/** The 409 of an approval that lost a compare-and-set: why, as the job now stands. */
async function lostRace(queue: JobQueue, job: JobRecord, leaseMs: number): Promise<ConflictError> {
  try {
    refuseApproval((await queue.get(job._id)) ?? job, leaseMs);
  } catch (e) {
    if (e instanceof ConflictError) return e;
    throw e;
  }
  // the winner's write-back failed and cleared its approval meanwhile: this request may simply retry
  return new ConflictError(`another approval of job '${job.job_id}' got there first; try again`);
}

/** 409 unless the job is finished and unapproved. */
export function refuseApproval(job: JobRecord, leaseMs: number): void {
  const wb = job.approval?.write_back;
  if (wb?.state === "running") {
    const last = String(wb.heartbeat_at ?? job.approval!.approved_at);
    throw new ConflictError(
      `job '${job.job_id}' was approved by ${job.approval!.approved_by} and its write-back is running ` +
        `(last heard of at ${last}); if it was interrupted, approving again from ` +
        `${new Date(Date.parse(last) + leaseMs).toISOString()} resumes it`,
    );
  }
  if (job.approval) {
    throw new ConflictError(
      `job '${job.job_id}' was approved already, by ${job.approval.approved_by} at ${job.approval.approved_at}`,
    );
  }
  if (job.status === "rejected") {
    const r = job.rejection;
    throw new ConflictError(
      `job '${job.job_id}' was rejected${r ? ` by ${r.rejected_by} at ${r.rejected_at}` : ""}: ` +
        "its results are never written back",
    );
  }
  if (job.status !== "succeeded") {
    throw new ConflictError(
      `job '${job.job_id}' is ${job.status}: only a finished (succeeded) job can be approved`,
    );
  }
}
