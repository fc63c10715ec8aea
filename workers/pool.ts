/**
 * A small pool of module workers for CPU work of seconds (Monte Carlo, solver, training, cleaning):
 * the event loop stays free, so `/healthz` and every other request answer while it runs
 * (DESIGN.md "Long work"). A task's time limit counts from its submission, queueing included: one past
 * it while queued leaves the queue and never starts; one past it while running has its worker
 * terminated and replaced, since synchronous code cannot be interrupted any other way. An abort signal
 * ends a task the same way, so a caller that has given up leaves no work behind.
 */
import { LimitError } from "../core/errors.ts";
import { deserializeError, type TaskReply, type TaskRequest, transferables } from "./protocol.ts";

interface Job {
  req: TaskRequest;
  transfer: boolean;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  /** The deadline's timer, set at submission. */
  timer?: ReturnType<typeof setTimeout>;
  signal?: AbortSignal;
  onAbort?: () => void;
  /** The worker running the job, once one took it. */
  slot?: Slot;
}

interface Slot {
  worker: Worker;
  job: Job | null;
}

export interface RunOptions {
  /**
   * Wall-clock limit in ms from the call (time in the queue counts; default 10 minutes); the task fails
   * with LimitError past it.
   */
  timeoutMs?: number;
  /** Ends the task (queued: dropped; running: its worker replaced); it fails with LimitError. */
  signal?: AbortSignal;
  /**
   * Hand the payload's typed-array buffers to the worker instead of copying them. Faster, but the
   * caller's arrays are empty afterwards, so only for payloads built for this one call.
   */
  transfer?: boolean;
}

/** No worker can be started on this platform (some hosts have no Web Workers): the task cannot run here. */
export class WorkerUnavailableError extends Error {
  override name = "WorkerUnavailableError";
}

/** The error of a task whose caller aborted it. */
const aborted = () => new LimitError("the task was cancelled before it finished");

export class WorkerPool {
  private slots: Slot[] = [];
  private queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  /** `size` workers running `moduleUrl` (default: one per core). */
  constructor(private moduleUrl: URL, readonly size = Math.max(1, navigator.hardwareConcurrency || 2)) {}

  /** Runs `task` on a free worker (queueing when all are busy) and resolves with its result. */
  run<T>(task: string, payload: unknown, opts: RunOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the worker pool is closed"));
    if (opts.signal?.aborted) return Promise.reject(aborted());
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        req: { id: this.nextId++, task, payload },
        transfer: opts.transfer ?? false,
        resolve: resolve as (v: unknown) => void,
        reject,
        signal: opts.signal,
      };
      const timeoutMs = opts.timeoutMs ?? 600_000;
      job.timer = setTimeout(
        () => this.end(job, new LimitError(`time limit of ${timeoutMs / 1000} s reached`)),
        timeoutMs,
      );
      if (job.signal) {
        job.onAbort = () => this.end(job, aborted());
        job.signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  /** Ends every worker; queued and running tasks are rejected. */
  close(): void {
    this.closed = true;
    const error = new Error("the worker pool closed");
    for (const s of this.slots) {
      s.worker.terminate();
      if (s.job) this.settle(s.job, error);
    }
    for (const j of this.queue.splice(0)) this.settle(j, error);
    this.slots = [];
  }

  /** Tasks waiting for a worker (tests, and a view of the backlog). */
  get queued(): number {
    return this.queue.length;
  }

  private pump(): void {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.size) {
        try {
          slot = this.spawn();
        } catch (e) {
          if (this.slots.length) return; // the running workers take the queue when they finish
          const error = new WorkerUnavailableError(
            `cannot start a web worker here: ${(e as Error)?.message ?? e}`,
          );
          for (const j of this.queue.splice(0)) this.settle(j, error);
          return;
        }
      }
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(this.moduleUrl, { type: "module" }), job: null };
    slot.worker.onmessage = (ev: MessageEvent<TaskReply>) => this.finish(slot, ev.data);
    slot.worker.onerror = (ev) => {
      ev.preventDefault();
      this.replace(slot, new Error(`worker crashed: ${ev.message}`));
    };
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    job.slot = slot;
    slot.worker.postMessage(job.req, job.transfer ? transferables(job.req.payload) : []);
  }

  private finish(slot: Slot, reply: TaskReply): void {
    const job = slot.job;
    if (!job || job.req.id !== reply.id) return;
    slot.job = null;
    if (reply.retire) {
      // It holds much WebAssembly memory that would never shrink: a fresh worker takes its place on demand.
      slot.worker.terminate();
      this.slots = this.slots.filter((s) => s !== slot);
    }
    if (reply.ok) this.settle(job, null, reply.result);
    else this.settle(job, deserializeError(reply.error));
    this.pump();
  }

  /** A job past its deadline or aborted: out of the queue if still there, else its worker replaced. */
  private end(job: Job, error: Error): void {
    const at = this.queue.indexOf(job);
    if (at >= 0) {
      this.queue.splice(at, 1);
      this.settle(job, error);
    } else if (job.slot?.job === job) this.replace(job.slot, error);
  }

  /** Throws a worker away (time limit, abort, crash) and fails its task; a fresh one takes its place on demand. */
  private replace(slot: Slot, error: Error): void {
    slot.worker.terminate();
    this.slots = this.slots.filter((s) => s !== slot);
    if (slot.job) this.settle(slot.job, error);
    slot.job = null;
    this.pump();
  }

  /** Resolves or rejects a job once, dropping its timer and abort listener. */
  private settle(job: Job, error: Error | null, result?: unknown): void {
    clearTimeout(job.timer);
    if (job.onAbort) job.signal?.removeEventListener("abort", job.onAbort);
    job.slot = undefined;
    if (error) job.reject(error);
    else job.resolve(result);
  }
}
