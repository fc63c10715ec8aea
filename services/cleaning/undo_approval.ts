/**
 * Taking back an approved job's approval (`POST /approve/{job_id}/undo`): the undo is recorded on the
 * approval (`approval.undo`, state running) by a compare-and-set, runs under a fencing owner with a
 * heartbeat like the write-back, and is marked done, logged once, by the compare-and-set that moves the
 * approval into `undone_approvals` (the job can then be approved again). An undo whose process died is
 * resumed by the next undo request once its heartbeat is a lease old; asking again once it is done
 * answers the same report and changes nothing.
 */
import type { Decider } from "../decisions/entry.ts";
import { decideOn } from "../decisions/outbox.ts";
import { ConflictError } from "../../core/errors.ts";
import { type Approval, type JobQueue, type JobRecord, jobsRef } from "./job_queue.ts";
import { undoWriteBack } from "./undo.ts";
import { undoEntry } from "./decision_entries.ts";
import { writeBackPlan } from "./validate_run.ts";
import { touchDataset } from "../datasets/registry.ts";

/** The answer of an undo: what it restored, the documents it left alone, and who undid it when. */
export interface UndoAnswer {
  job_id: string;
  restored: number;
  skipped: string[];
  missing: number;
  fields_not_restored: string[];
  undone_at: string;
  undone_by: string;
  undone_by_username: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The answer of a done undo, as its approval in the history keeps it. */
function answerOf(job: JobRecord, undo: Record<string, unknown>): UndoAnswer {
  return {
    job_id: job.job_id,
    restored: Number(undo.restored ?? 0),
    skipped: (undo.skipped ?? []) as string[],
    missing: Number(undo.missing ?? 0),
    fields_not_restored: (undo.fields_not_restored ?? []) as string[],
    undone_at: String(undo.undone_at),
    undone_by: String(undo.undone_by),
    undone_by_username: (undo.undone_by_username ?? null) as string | null,
  };
}

/** True when an undo is marked running but has not been heard of for a whole lease (its process died). */
export function undoStalled(job: JobRecord, leaseMs: number, now: number): boolean {
  const undo = job.approval?.undo;
  if (undo?.state !== "running") return false;
  return !(now - Date.parse(String(undo.heartbeat_at ?? undo.started_at)) < leaseMs);
}

/** 409 unless the job's approval can be undone now (or its stalled undo resumed). */
export function refuseUndo(job: JobRecord, leaseMs: number, now: number): void {
  const id = job.job_id;
  const a = job.approval;
  if (!a) {
    if (job.status === "rejected") {
      throw new ConflictError(`job '${id}' was rejected, not approved: there is no approval to undo`);
    }
    throw new ConflictError(`job '${id}' is ${job.status} and not approved: there is no approval to undo`);
  }
  if (a.write_back.state === "running") {
    throw new ConflictError(
      `the write-back of job '${id}' is still running (approved by ${a.approved_by} at ${a.approved_at}); ` +
        "undo it once it is done",
    );
  }
  const undo = a.undo;
  if (undo?.state === "running" && !undoStalled(job, leaseMs, now)) {
    const last = String(undo.heartbeat_at ?? undo.started_at);
    throw new ConflictError(
      `an undo of job '${id}' by ${undo.undone_by} is running (last heard of at ${last}); if it was ` +
        `interrupted, undoing again from ${iso(Date.parse(last) + leaseMs)} resumes it`,
    );
  }
}

/**
 * Undoes `job`'s approval by `who` (or resumes its stalled undo, which stays the first requester's), or
 * answers the done undo of its last approval taken back; a 409 when it cannot (refuseUndo).
 */
export async function undoApproval(
  queue: JobQueue,
  job: JobRecord,
  who: Decider,
  leaseMs: number,
): Promise<UndoAnswer> {
  for (let attempt = 0;; attempt++) {
    const last = job.undone_approvals?.at(-1)?.undo;
    if (!job.approval && last?.state === "done") return answerOf(job, last);
    refuseUndo(job, leaseMs, Date.now());
    const taken = await startUndo(queue, job, who);
    if (taken) return await runUndo(queue, taken.job, taken.owner, leaseMs);
    const now = await queue.get(job._id); // another request got there first: answer as the job now stands
    if (!now || attempt >= 2) throw new ConflictError(`job '${job.job_id}' changed meanwhile; try again`);
    job = now;
  }
}

/** Records the undo as running under a new owner, only if nothing touched the job since it was read. */
async function startUndo(queue: JobQueue, job: JobRecord, who: Decider) {
  const at = iso(Date.now());
  const approval = job.approval!;
  const undo = approval.undo?.state === "running"
    ? { ...approval.undo, heartbeat_at: at, resumed_at: at, resumed_by: who.sub }
    : {
      state: "running",
      started_at: at,
      heartbeat_at: at,
      undone_by: who.sub,
      undone_by_username: who.username,
    };
  const owner = crypto.randomUUID();
  const expect = { status: "succeeded", updated_at: job.updated_at };
  const set = { approval: { ...approval, undo }, undo_owner: owner, updated_at: at };
  const done = await queue.store.compareAndSet(jobsRef(queue.tesseraDb), job._id, expect, set);
  return done ? { job: done as JobRecord, owner } : null;
}

/** Sets the running undo's record while `owner` holds it (`release` lets go); false once taken over. */
async function setUndo(queue: JobQueue, id: string, owner: string, approval: Approval, release: boolean) {
  const set = { approval, undo_owner: release ? null : owner, updated_at: iso(Date.now()) };
  return (await queue.store.compareAndSet(jobsRef(queue.tesseraDb), id, { undo_owner: owner }, set)) !== null;
}

/**
 * Runs the undo `owner` holds, with a heartbeat every third of `leaseMs`; done, the approval moves into
 * the history and the undo is logged, in one compare-and-set. A failure (not a death) lets go of it, the
 * approval as it was, so undoing again does it all again (every step is idempotent).
 */
async function runUndo(queue: JobQueue, job: JobRecord, owner: string, leaseMs: number): Promise<UndoAnswer> {
  const approval = job.approval!;
  const running = approval.undo!;
  const plan = approval.write_back.state === "skipped" ? null : writeBackPlan(job, approval.approval_info);
  const beat = () =>
    setUndo(
      queue,
      job._id,
      owner,
      { ...approval, undo: { ...running, heartbeat_at: iso(Date.now()) } },
      false,
    );
  const heartbeat = setInterval(() => beat().catch(() => {}), Math.max(50, leaseMs / 3));
  let report;
  try {
    const before = (approval.write_back.fields_before ?? []) as string[];
    const ref = { db: job.database, collection: job.collection };
    report = plan
      ? await undoWriteBack(queue.store, queue.tesseraDb, job, plan, before)
        .finally(() => touchDataset(queue.store, queue.tesseraDb, ref))
      : { restored: 0, skipped: [], missing: 0, fields_not_restored: [] };
  } catch (e) {
    clearInterval(heartbeat);
    const { undo: _, ...asWas } = approval;
    await setUndo(queue, job._id, owner, asWas, true);
    throw e;
  }
  clearInterval(heartbeat);
  const { heartbeat_at: _h, ...kept } = running;
  const undo = { ...kept, ...report, state: "done", undone_at: iso(Date.now()) };
  const undone = { ...approval, undo };
  const entry = undoEntry(job, approval, plan, undo);
  const finished = await decideOn(queue.store, queue.tesseraDb, jobsRef(queue.tesseraDb), job._id, {
    undo_owner: owner,
  }, (doc) => ({
    set: {
      approval: null,
      undo_owner: null,
      undone_approvals: [...((doc.undone_approvals ?? []) as Approval[]), undone],
      updated_at: iso(Date.now()),
    },
    entry,
  }));
  if (!finished) {
    throw new ConflictError(`the undo of job '${job.job_id}' was taken over by a later request while it ran`);
  }
  return answerOf(job, undo);
}
