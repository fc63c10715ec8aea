/**
 * A small pool of module workers for CPU work of seconds (Monte Carlo, solver, training, cleaning):
 * the event loop stays free, so `/healthz` and every other request answer while it runs. A task's time
 * limit counts from its submission, queueing included: one past it while queued leaves the queue and
 * never starts; one past it while running has its worker terminated and replaced, since synchronous code
 * cannot be interrupted any other way. An abort signal ends a task the same way, so a caller that has
 * given up leaves no work behind (`withSignal` in signalled_pool.ts: every task of a request at once). A
 * running task may report its progress (`onProgress`).
 *
 * Inline: with no workers (WORKERS=0), or where none can start (Deno Deploy: `new Worker` throws or the
 * worker's module does not load), a pool that knows its task table runs the tasks in the caller's
 * isolate, one at a time, through the same runTask and structured clone as a worker: the same answers,
 * the same errors, the caller's arrays copied (or moved, with `transfer`) as a worker would. What inline
 * cannot do is keep the event loop free while a task computes (it yields between tasks) or interrupt a
 * running task: its limit and signal still hold in the queue, and a task that ends past its limit (or
 * was aborted meanwhile) fails with the same LimitError, its result dropped.
 */
import { log } from "../core/log.ts";
import {
  deliverReply,
  deserializeError,
  runTask,
  type TaskReply,
  type TaskRequest,
  type TaskTable,
  transferables,
  type WorkerMessage,
} from "./protocol.ts";
import { nextTurn } from "../core/turns.ts";
import type { TaskInput, TaskName, TaskOutput } from "./tasks.ts";
import {
  aborted,
  expired,
  type Job,
  reportProgress,
  type RunOptions,
  settle,
  type Slot,
  type TaskSource,
  WorkerUnavailableError,
} from "./pool_jobs.ts";

/** How long a worker's warm-up may take (warm()): it takes about a second. */
const WARM_UP_MS = 30_000;

/** One worker per core: the default size. */
const perCore = () => Math.max(1, navigator.hardwareConcurrency || 2);

/** A turn of the event loop: timers and I/O run before the next inline task takes the thread. */

export class WorkerPool {
  private slots: Slot[] = [];
  private queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Set once the pool runs inline: the task table, loading or loaded. */
  private table: Promise<TaskTable> | null = null;
  /** The task running inline (one at a time). */
  private current: Job | null = null;
  /** A worker of this pool loaded once: a later failure to load is a crash, not a platform without workers. */
  private loadedOnce = false;

  /**
   * `workers` workers running `moduleUrl` (default: one per core). With `tasks`, the table that module
   * serves, the pool runs inline where workers cannot (0 workers, or none can start); without it, a
   * platform without workers fails each task with WorkerUnavailableError.
   */
  constructor(private moduleUrl: URL, private workers = perCore(), private tasks?: TaskSource) {
    if (!Number.isInteger(workers) || workers < 0) {
      throw new RangeError(`workers must be ≥ 0, not ${workers}`);
    }
    if (workers === 0 && !tasks) {
      throw new RangeError("a pool of 0 workers needs its task table to run inline");
    }
    if (workers === 0) this.goInline();
  }

  /** Tasks that run at once: the workers, or 1 inline (callers split their work by it). */
  get size(): number {
    return this.table ? 1 : this.workers;
  }

  /** Whether the tasks run in this isolate (WORKERS=0, or no worker could start). */
  get inline(): boolean {
    return this.table !== null;
  }

  /** Runs `task` on a free worker (queueing when all are busy) and resolves with its result. */
  run<K extends TaskName>(task: K, payload: TaskInput<K>, opts: RunOptions = {}): Promise<TaskOutput<K>> {
    // the one place the boundary is trusted: a worker answers what its task of the table returned
    return this.submit(task, payload, opts) as Promise<TaskOutput<K>>;
  }

  /**
   * Starts every worker now rather than at a first task: starting one holds the event loop a while, which
   * a request under way would feel (/healthz). Where none can start, the pool goes inline now.
   * With `task`, each worker started here runs it first (a warm-up: what a first task would otherwise
   * pay, such as loading a WebAssembly renderer); a failed warm-up is logged and costs nothing more.
   * Inline, nothing is warmed: it would hold the event loop. Resolves once every warm-up has ended
   * (main.ts serves only then: warm-ups on every core delay a request's answers).
   */
  warm(task?: TaskName): Promise<void> {
    const started = this.slots.length;
    while (!this.table && !this.closed && this.slots.length < this.workers) {
      try {
        this.spawn();
      } catch (e) {
        if (!this.slots.length && this.tasks) {
          this.goInline(`cannot start a web worker here: ${(e as Error)?.message ?? e}`);
        }
        break;
      }
    }
    if (!task || this.table) return Promise.resolve();
    // queued now, each takes one of the workers just started (they are idle)
    const warming: Promise<void>[] = [];
    for (let k = started; k < this.slots.length; k++) {
      warming.push(
        this.submit(task, undefined, { timeoutMs: WARM_UP_MS }).then(() => {}, (e) => {
          if (!this.closed) {
            log("warn", "a worker's warm-up failed", { task, error: String(e?.message ?? e) });
          }
        }),
      );
    }
    return Promise.all(warming).then(() => {});
  }

  /** Ends every worker; queued and running tasks are rejected. */
  close(): void {
    this.closed = true;
    const error = new Error("the worker pool closed");
    for (const s of this.slots) {
      s.worker.terminate();
      if (s.job) settle(s.job, error);
    }
    for (const j of this.queue.splice(0)) settle(j, error);
    if (this.current) settle(this.current, error);
    this.slots = [];
  }

  /** Tasks waiting for a worker (tests, and a view of the backlog). */
  get queued(): number {
    return this.queue.length;
  }

  private submit(task: string, payload: unknown, opts: RunOptions): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error("the worker pool is closed"));
    if (opts.signal?.aborted) return Promise.reject(aborted());
    return new Promise<unknown>((resolve, reject) => {
      const timeoutMs = opts.timeoutMs ?? 600_000;
      const job: Job = {
        req: { id: this.nextId++, task, payload },
        transfer: opts.transfer ?? false,
        resolve,
        reject,
        timeoutMs,
        deadline: performance.now() + timeoutMs,
        signal: opts.signal,
        onProgress: opts.onProgress,
        done: false,
      };
      job.timer = setTimeout(() => this.end(job, expired(job)), timeoutMs);
      if (job.signal) {
        job.onAbort = () => this.end(job, aborted());
        job.signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.queue.push(job);
      this.pump();
    });
  }

  private pump(): void {
    if (this.table) return this.pumpInline();
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.workers) {
        try {
          slot = this.spawn();
        } catch (e) {
          if (this.slots.length) return; // the running workers take the queue when they finish
          const why = `cannot start a web worker here: ${(e as Error)?.message ?? e}`;
          if (this.tasks) return this.goInline(why);
          const error = new WorkerUnavailableError(why);
          for (const j of this.queue.splice(0)) settle(j, error);
          return;
        }
      }
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(this.moduleUrl, { type: "module" }), job: null, ready: false };
    slot.worker.onmessage = (ev: MessageEvent<WorkerMessage>) => {
      if ("ready" in ev.data) slot.ready = this.loadedOnce = true;
      else if ("progress" in ev.data) {
        const { id, progress } = ev.data;
        if (slot.job?.req.id === id) reportProgress(slot.job, () => progress);
      } else this.finish(slot, ev.data);
    };
    slot.worker.onerror = (ev) => {
      ev.preventDefault();
      if (!slot.ready && !this.loadedOnce && this.tasks) {
        this.goInline(`a web worker cannot load here: ${ev.message}`);
      } else this.replace(slot, new Error(`worker crashed: ${ev.message}`));
    };
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    job.slot = slot;
    try {
      slot.worker.postMessage(job.req, job.transfer ? transferables(job.req.payload) : []);
    } catch (e) {
      // a payload that cannot be cloned: the task fails, the worker stays free
      slot.job = null;
      settle(job, e as Error);
    }
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
    this.answer(job, reply);
    this.pump();
  }

  /** Settles a job with its task's reply, the typed error rebuilt on this side. */
  private answer(job: Job, reply: TaskReply): void {
    if (reply.ok) settle(job, null, reply.result);
    else settle(job, deserializeError(reply.error));
  }

  /**
   * From now on the tasks run in this isolate (logged once at warn when workers could not start). Workers
   * started meanwhile never loaded either: their tasks never ran and go back to the queue, in order.
   */
  private goInline(why?: string): void {
    if (this.table) return;
    if (why) {
      log("warn", "no web worker can run here: the worker pool runs its tasks inline", { reason: why });
    }
    this.table = this.tasks!();
    this.table.catch(() => {}); // a table that fails to load fails each task instead (runInline)
    const back: Job[] = [];
    for (const s of this.slots) {
      s.worker.terminate();
      if (s.job) back.push(s.job);
    }
    for (const j of back) j.slot = undefined;
    this.slots = [];
    this.queue.unshift(...back.sort((a, b) => a.req.id - b.req.id));
    this.pump();
  }

  private pumpInline(): void {
    if (this.current || !this.queue.length) return;
    const job = this.queue.shift()!;
    this.current = job;
    this.runInline(job).finally(() => {
      this.current = null;
      this.pump();
    });
  }

  /** One task in this isolate, after a turn of the event loop, its payload and reply cloned as a worker's. */
  private async runInline(job: Job): Promise<void> {
    await nextTurn();
    if (job.done) return; // ended while waiting for its turn
    let tasks: TaskTable;
    let req: TaskRequest;
    try {
      tasks = await this.table!;
      const transfer = job.transfer ? transferables(job.req.payload) : [];
      req = { ...job.req, payload: structuredClone(job.req.payload, { transfer }) };
    } catch (e) {
      return settle(job, e as Error);
    }
    // cloned as a worker's post would be
    const report = (progress: unknown) => reportProgress(job, () => structuredClone(progress));
    const reply = deliverReply(
      await runTask(tasks, req, report),
      (r, transfer) => structuredClone(r, { transfer }),
    );
    // a running task cannot be interrupted: past its limit or aborted meanwhile, it fails as in a worker
    if (job.signal?.aborted) settle(job, aborted());
    else if (performance.now() >= job.deadline) settle(job, expired(job));
    else this.answer(job, reply);
  }

  /**
   * A job past its deadline or aborted: out of the queue if still there, else its worker replaced (inline,
   * it fails now and its task, which cannot be stopped, runs on with its result dropped).
   */
  private end(job: Job, error: Error): void {
    const at = this.queue.indexOf(job);
    if (at >= 0) {
      this.queue.splice(at, 1);
      settle(job, error);
    } else if (job.slot?.job === job) this.replace(job.slot, error);
    else if (job === this.current) settle(job, error);
  }

  /** Throws a worker away (time limit, abort, crash) and fails its task; a fresh one takes its place on demand. */
  private replace(slot: Slot, error: Error): void {
    slot.worker.terminate();
    this.slots = this.slots.filter((s) => s !== slot);
    if (slot.job) settle(slot.job, error);
    slot.job = null;
    this.pump();
  }
}

/** The service's task table, imported only once a pool runs inline (workers load it on their own). */
const serviceTasks: TaskSource = async () => (await import("./tasks.ts")).TASKS;

/**
 * The service's pool: `workers` Web Workers serving workers/tasks.ts (default: one per core; 0: every
 * task inline), running inline where no worker can start.
 */
export function createWorkerPool(workers?: number): WorkerPool {
  return new WorkerPool(new URL("./worker.ts", import.meta.url), workers, serviceTasks);
}
