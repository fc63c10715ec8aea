/**
 * A small pool of module workers for CPU work of seconds (Monte Carlo, solver, training, cleaning):
 * the event loop stays free, so `/healthz` and every other request answer while it runs
 * (DESIGN.md "Long work"). A task over its time limit has its worker terminated and replaced, since
 * synchronous code cannot be interrupted any other way.
 */
import { LimitError } from "../core/errors.ts";
import { deserializeError, type TaskReply, type TaskRequest, transferables } from "./protocol.ts";

interface Job {
  req: TaskRequest;
  timeoutMs: number;
  transfer: boolean;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer?: ReturnType<typeof setTimeout>;
}

export interface RunOptions {
  /** Wall-clock limit in ms (default 10 minutes); the task fails with LimitError past it. */
  timeoutMs?: number;
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
    return new Promise<T>((resolve, reject) => {
      const req = { id: this.nextId++, task, payload };
      this.queue.push({
        req,
        timeoutMs: opts.timeoutMs ?? 600_000,
        transfer: opts.transfer ?? false,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      this.pump();
    });
  }

  /** Ends every worker; queued and running tasks are rejected. */
  close(): void {
    this.closed = true;
    for (const s of this.slots) {
      clearTimeout(s.timer);
      s.worker.terminate();
      s.job?.reject(new Error("the worker pool closed"));
    }
    for (const j of this.queue.splice(0)) j.reject(new Error("the worker pool closed"));
    this.slots = [];
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
          for (const j of this.queue.splice(0)) j.reject(error);
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
    slot.timer = setTimeout(
      () => this.replace(slot, new LimitError(`time limit of ${job.timeoutMs / 1000} s reached`)),
      job.timeoutMs,
    );
    slot.worker.postMessage(job.req, job.transfer ? transferables(job.req.payload) : []);
  }

  private finish(slot: Slot, reply: TaskReply): void {
    const job = slot.job;
    if (!job || job.req.id !== reply.id) return;
    clearTimeout(slot.timer);
    slot.job = null;
    if (reply.ok) job.resolve(reply.result);
    else job.reject(deserializeError(reply.error));
    this.pump();
  }

  /** Throws a worker away (time limit, crash) and fails its task; a fresh one takes its place on demand. */
  private replace(slot: Slot, error: Error): void {
    clearTimeout(slot.timer);
    slot.worker.terminate();
    this.slots = this.slots.filter((s) => s !== slot);
    slot.job?.reject(error);
    this.pump();
  }
}
