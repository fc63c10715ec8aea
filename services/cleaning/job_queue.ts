/**
 * The durable queue of cleaning jobs (spec 3): job records in the store, claimed and leased through
 * `compareAndSet`, so several Tessera instances on one MongoDB never run the same job twice.
 *
 * Every claim increments `attempt`, and every later write by the runner expects its own attempt and
 * owner: a runner whose lease expired and was taken over cannot write anything any more (a fencing
 * token). A running job whose lease expired is taken over by the next claim; after JOB_MAX_ATTEMPTS
 * such interruptions it is failed instead, so a job that kills its process cannot loop forever.
 */
import type { CollectionRef, Doc, Store } from "../../store/store.ts";
import { newId } from "../../store/ids.ts";
import type { Dtype, Task } from "../../core/cleaning/methods.ts";
import type { DecisionEntry } from "../decisions/entry.ts";
import { decideOn } from "../decisions/outbox.ts";

/** A job's state; `rejected`: a reviewer refused its results (it succeeded), so they are never written back. */
export type JobStatus = "queued" | "running" | "succeeded" | "failed" | "rejected";

/** Where the page documents of a job's results live, and how many entries they hold. */
export interface ResultsMeta {
  attempt: number;
  pages: number;
  total: number;
}

export interface Approval {
  /** The token's subject; the username beside it is for people reading the record. */
  approved_by: string;
  approved_by_username: string | null;
  approved_at: string;
  approval_info: Record<string, unknown>;
  write_back: Record<string, unknown>;
  /** Its undo (`POST /approve/{job_id}/undo`) while it runs; a done undo moves it to `undone_approvals`. */
  undo?: Record<string, unknown>;
}

/** A reviewer's refusal of a finished job's results (the console's "Reject"). */
export interface Rejection {
  rejected_by: string;
  rejected_by_username: string | null;
  rejected_at: string;
  reason: string | null;
}

/** A job as stored (and, without the lease fields' internals, as the API shows it). */
export interface JobRecord extends Doc {
  job_id: string;
  task: Task;
  dtype: Dtype;
  method: string;
  params: Record<string, unknown>;
  date_col: string | null;
  data: string;
  database: string;
  collection: string;
  columns: string[];
  /** The dataset's rows when the job was made (progress counts against it). */
  rows: number;
  status: JobStatus;
  progress: number;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  updated_at: string;
  created_by: string;
  client_id: string | null;
  attempt: number;
  interruptions: number;
  lease_owner: string | null;
  lease_expires_at: string | null;
  summary: Record<string, unknown> | null;
  results: ResultsMeta | null;
  error: { type: string; message: string } | null;
  approval: Approval | null;
  /** Set when the job was rejected (status `rejected`); absent on jobs stored before rejections existed. */
  rejection?: Rejection | null;
  /** Who holds the approval's write-back while it runs (a fencing token, like `lease_owner`). */
  write_back_owner?: string | null;
  /** Who holds the approval's undo while it runs (the same kind of fencing token). */
  undo_owner?: string | null;
  /** Approvals taken back, oldest first, each with its `undo` report (the job may be approved again). */
  undone_approvals?: Approval[];
}

export type NewJob = Pick<
  JobRecord,
  | "task"
  | "dtype"
  | "method"
  | "params"
  | "date_col"
  | "data"
  | "database"
  | "collection"
  | "columns"
  | "rows"
  | "created_by"
  | "client_id"
>;

export const jobsRef = (tesseraDb: string): CollectionRef => ({ db: tesseraDb, collection: "cleaning_jobs" });
export const resultsRef = (tesseraDb: string): CollectionRef => ({
  db: tesseraDb,
  collection: "cleaning_results",
});

const iso = (ms: number) => new Date(ms).toISOString();

/** The job queue of one Tessera database; `now` is injectable so tests can move time. */
export class JobQueue {
  constructor(readonly store: Store, readonly tesseraDb: string, private now: () => number = Date.now) {}

  private get ref() {
    return jobsRef(this.tesseraDb);
  }

  /** Stores a new queued job and returns it. */
  async create(fields: NewJob): Promise<JobRecord> {
    const id = newId();
    const at = iso(this.now());
    const job: JobRecord = {
      _id: id,
      job_id: id,
      ...fields,
      status: "queued",
      progress: 0,
      created_at: at,
      started_at: null,
      ended_at: null,
      updated_at: at,
      attempt: 0,
      interruptions: 0,
      lease_owner: null,
      lease_expires_at: null,
      summary: null,
      results: null,
      error: null,
      approval: null,
      write_back_owner: null,
    };
    await this.store.put(this.ref, job);
    return job;
  }

  async get(id: string): Promise<JobRecord | null> {
    return (await this.store.get(this.ref, id)) as JobRecord | null;
  }

  /** Jobs queued or running with no results stored yet (`/get-new-jobs/`), oldest first. */
  async listNew(): Promise<JobRecord[]> {
    const [queued, running] = await Promise.all([
      this.store.list(this.ref, { status: "queued", results: null }),
      this.store.list(this.ref, { status: "running", results: null }),
    ]);
    return ([...queued, ...running] as JobRecord[]).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  /**
   * Claims the oldest job that is queued or whose lease expired, for `owner`, leased for `leaseMs`;
   * null when there is none, or when `limit` jobs run under `owner`'s unexpired leases already (an
   * instance's JOB_CONCURRENCY). A job past `maxAttempts` interruptions is failed instead of claimed.
   */
  async claim(
    owner: string,
    leaseMs: number,
    maxAttempts: number,
    opts: { limit?: number } = {},
  ): Promise<JobRecord | null> {
    const now = this.now();
    const candidates = await this.listNew();
    if (opts.limit !== undefined) {
      const mine = candidates.filter((j) =>
        j.status === "running" && j.lease_owner === owner && Date.parse(j.lease_expires_at ?? "") > now
      );
      if (mine.length >= opts.limit) return null;
    }
    for (const job of candidates) {
      const expired = job.status === "running" && Date.parse(job.lease_expires_at ?? "") <= now;
      if (job.status === "running" && !expired) continue;
      const expect = { status: job.status, attempt: job.attempt };
      const interruptions = job.interruptions + (expired ? 1 : 0);
      if (interruptions >= maxAttempts) {
        await this.store.compareAndSet(this.ref, job._id, expect, {
          status: "failed",
          ended_at: iso(now),
          updated_at: iso(now),
          lease_owner: null,
          lease_expires_at: null,
          interruptions,
          error: {
            type: "interrupted",
            message:
              `the worker running this job stopped ${interruptions} times; giving up (JOB_MAX_ATTEMPTS)`,
          },
        });
        continue;
      }
      const claimed = await this.store.compareAndSet(this.ref, job._id, expect, {
        status: "running",
        attempt: job.attempt + 1,
        interruptions,
        lease_owner: owner,
        lease_expires_at: iso(now + leaseMs),
        started_at: job.started_at ?? iso(now),
        updated_at: iso(now),
        progress: 0,
      });
      if (claimed) return claimed as JobRecord;
    }
    return null;
  }

  /** Sets fields of a job this runner still holds; false once the lease was lost to another runner. */
  async update(job: JobRecord, set: Partial<JobRecord>): Promise<boolean> {
    const mine = { status: "running", attempt: job.attempt, lease_owner: job.lease_owner };
    return (await this.store.compareAndSet(this.ref, job._id, mine, {
      ...set,
      updated_at: iso(this.now()),
    })) !== null;
  }

  /** Extends the lease (and records progress); false once the lease was lost. */
  renew(job: JobRecord, leaseMs: number, progress?: number): Promise<boolean> {
    const set: Partial<JobRecord> = { lease_expires_at: iso(this.now() + leaseMs) };
    if (progress !== undefined) set.progress = Math.round(progress * 1000) / 1000;
    return this.update(job, set);
  }

  /** Marks the job finished with its summary and where its results are. */
  succeed(job: JobRecord, summary: Record<string, unknown>, results: ResultsMeta): Promise<boolean> {
    return this.update(job, {
      status: "succeeded",
      progress: 1,
      ended_at: iso(this.now()),
      summary,
      results,
      lease_owner: null,
      lease_expires_at: null,
    });
  }

  /** Marks the job failed with the error (its message only: never a stack trace). */
  fail(job: JobRecord, type: string, message: string): Promise<boolean> {
    return this.update(job, {
      status: "failed",
      ended_at: iso(this.now()),
      error: { type, message },
      lease_owner: null,
      lease_expires_at: null,
    });
  }

  /** Hands a running job back to the queue at once (graceful shutdown), so the next claim needs no wait. */
  release(job: JobRecord): Promise<boolean> {
    return this.update(job, { status: "queued", lease_owner: null, lease_expires_at: null, progress: 0 });
  }

  /**
   * Sets the approval of a succeeded, unapproved job, its write-back held by `owner`; null when it is not
   * (or no longer) approvable. `entry` logs it in the same write (an approval that writes nothing back).
   */
  async approve(
    id: string,
    approval: Approval,
    owner: string | null,
    entry: DecisionEntry | null = null,
  ): Promise<JobRecord | null> {
    const set = { approval, write_back_owner: owner, updated_at: iso(this.now()) };
    const guard = { status: "succeeded", approval: null };
    return (await decideOn(this.store, this.tesseraDb, this.ref, id, guard, () => ({ set, entry }))) as
      | JobRecord
      | null;
  }

  /**
   * Rejects a succeeded, unapproved job: status `rejected`, so no approval can follow (both expect
   * `{status: "succeeded", approval: null}`: of an approval and a rejection racing, one wins), logged by
   * `entry` in the same write. Null when it is not (or no longer) rejectable.
   */
  async reject(id: string, rejection: Rejection, entry: DecisionEntry): Promise<JobRecord | null> {
    const set = { status: "rejected", rejection, updated_at: iso(this.now()) };
    const guard = { status: "succeeded", approval: null };
    return (await decideOn(this.store, this.tesseraDb, this.ref, id, guard, () => ({ set, entry }))) as
      | JobRecord
      | null;
  }

  /** Every job, newest first (a reviewer's list; job records are small, their results live elsewhere). */
  async listAll(): Promise<JobRecord[]> {
    const jobs = (await this.store.list(this.ref)) as JobRecord[];
    return jobs.sort((a, b) => b.created_at.localeCompare(a.created_at) || b._id.localeCompare(a._id));
  }

  /**
   * Takes over a stalled write-back for `owner`, only if nothing touched the job since `job` was read
   * (a live writer's heartbeat changes `updated_at`); null when another writer got there first.
   */
  async takeOverWriteBack(job: JobRecord, owner: string, approval: Approval): Promise<JobRecord | null> {
    const expect = { status: "succeeded", updated_at: job.updated_at };
    const set = { approval, write_back_owner: owner, updated_at: iso(this.now()) };
    return (await this.store.compareAndSet(this.ref, job._id, expect, set)) as JobRecord | null;
  }

  /**
   * Records a write-back's heartbeat or outcome while `owner` still holds it (`release` lets go of it;
   * a null approval clears it so it can be given again); false once another writer took it over.
   */
  async setWriteBack(
    id: string,
    owner: string,
    approval: Approval | null,
    release: boolean,
  ): Promise<boolean> {
    const set = { approval, write_back_owner: release ? null : owner, updated_at: iso(this.now()) };
    return (await this.store.compareAndSet(this.ref, id, { write_back_owner: owner }, set)) !== null;
  }

  /**
   * Records a write-back as done and logs its approval (`entry`) in the same compare-and-set, while
   * `owner` still holds it; false once another writer took it over.
   */
  async finishWriteBack(
    id: string,
    owner: string,
    approval: Approval,
    entry: DecisionEntry,
  ): Promise<boolean> {
    const set = { approval, write_back_owner: null, updated_at: iso(this.now()) };
    const guard = { write_back_owner: owner };
    return (await decideOn(this.store, this.tesseraDb, this.ref, id, guard, () => ({ set, entry }))) !== null;
  }
}

/**
 * True when an approval's write-back is marked running but its writer has not been heard of for a whole
 * lease: the process died mid-write, and the next approval may resume it.
 */
export function writeBackStalled(job: JobRecord, leaseMs: number, now: number): boolean {
  const wb = job.approval?.write_back;
  if (wb?.state !== "running") return false;
  const last = Date.parse(String(wb.heartbeat_at ?? job.approval!.approved_at));
  return !(now - last < leaseMs);
}
