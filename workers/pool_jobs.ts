/**
 * A task as the pool holds it (`Job`: its request, time limit, signal and progress callback, the worker
 * running it), the options a caller gives it, and how it settles: once, dropping its timer and abort
 * listener, with a LimitError when its limit or its signal ended it.
 */
import { LimitError } from "../core/errors.ts";
import { log } from "../core/log.ts";
import type { TaskRequest, TaskTable } from "./protocol.ts";

export interface Job {
  req: TaskRequest;
  transfer: boolean;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  /** The time limit in ms, its deadline on performance.now()'s clock and its timer, set at submission. */
  timeoutMs: number;
  deadline: number;
  timer?: ReturnType<typeof setTimeout>;
  signal?: AbortSignal;
  onAbort?: () => void;
  onProgress?: (progress: unknown) => void;
  /** The worker running the job, once one took it. */
  slot?: Slot;
  /** Resolved or rejected: nothing may settle it again (an inline task's late result is dropped). */
  done: boolean;
}

export interface Slot {
  worker: Worker;
  job: Job | null;
  /** Its module has loaded (the worker said so): a failure from now on is a crash. */
  ready: boolean;
}

export interface RunOptions {
  /**
   * Wall-clock limit in ms from the call (time in the queue counts; default 10 minutes); the task fails
   * with LimitError past it.
   */
  timeoutMs?: number;
  /** Ends the task (queued: dropped; running: its worker replaced); it fails with LimitError. */
  signal?: AbortSignal;
  /** Called with each progress report the running task makes (its `Report`), never after it settled. */
  onProgress?: (progress: unknown) => void;
  /**
   * Hand the payload's typed-array buffers to the worker instead of copying them. Faster, but the
   * caller's arrays are empty afterwards, so only for payloads built for this one call.
   */
  transfer?: boolean;
}

/** The table a pool's worker module serves, loaded when the pool has to run inline. */
export type TaskSource = () => Promise<TaskTable>;

/**
 * No worker can be started on this platform (some hosts have no Web Workers) and the pool has no task
 * table to run inline: the task cannot run here.
 */
export class WorkerUnavailableError extends Error {
  override name = "WorkerUnavailableError";
}

/** The error of a task whose caller aborted it. */
export const aborted = () => new LimitError("the task was cancelled before it finished");

export const expired = (job: Job) => new LimitError(`time limit of ${job.timeoutMs / 1000} s reached`);

/** Hands a running job's progress report to its caller; a caller's failure never reaches the task. */
export function reportProgress(job: Job, progress: () => unknown): void {
  if (job.done || !job.onProgress) return;
  try {
    job.onProgress(progress());
  } catch (e) {
    log("warn", "a task's progress report failed", { task: job.req.task, error: String(e) });
  }
}

/** Resolves or rejects a job once, dropping its timer and abort listener. */
export function settle(job: Job, error: Error | null, result?: unknown): void {
  if (job.done) return;
  job.done = true;
  clearTimeout(job.timer);
  if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
  job.slot = undefined;
  if (error) job.reject(error);
  else job.resolve(result);
}
