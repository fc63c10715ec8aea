/**
 * The job runner each Tessera instance starts (JOBS_ENABLED): it polls the queue, claims a job, keeps
 * its lease alive while the worker pool computes, and stores results or the error. The computation runs
 * in a worker, so the event loop stays free to renew the lease; a process that dies stops renewing, and
 * another instance takes the job over once the lease has expired.
 */
import type { Store } from "../../store/store.ts";
import type { Config } from "../../config.ts";
import { StoreUnavailableError } from "../../store/store.ts";
import { JobQueue, type JobRecord } from "./job_queue.ts";
import { loadJobData, resultsOf } from "./job_data.ts";
import { deleteResults, writeResults } from "./job_results.ts";
import { findMethod } from "../../core/cleaning/methods.ts";
import type { CleaningInput } from "../../core/cleaning/run.ts";
import { InvalidInputError, LimitError } from "../../core/errors.ts";
import { log } from "../../core/log.ts";
import { WorkerUnavailableError } from "../../workers/pool_jobs.ts";
import type { TaskInput, TaskOutput } from "../../workers/tasks.ts";

/** What runs the computation: the WorkerPool, or anything with its `run` of the "cleaning.run" task. */
export interface TaskRunner {
  /** `timeoutMs` counts from the call; `signal` ends the task (the WorkerPool's RunOptions). */
  run(
    task: "cleaning.run",
    payload: TaskInput<"cleaning.run">,
    opts?: { timeoutMs?: number; signal?: AbortSignal },
  ): Promise<TaskOutput<"cleaning.run">>;
}

export interface RunnerOptions {
  /** This runner's name in `lease_owner` (default: host, pid and a random suffix). */
  owner?: string;
  leaseMs: number;
  pollMs: number;
  timeoutMs: number;
  maxAttempts: number;
  concurrency: number;
  /** Hears what happens (claimed, succeeded, failed, lost), for logs and tests. */
  onEvent?: (event: string, job: JobRecord, detail?: string) => void;
}

/** The lease was taken over by another runner: stop working on the job and write nothing more. */
class LeaseLost extends Error {}

/** The default runner name: unique per process, readable in the job record. */
function defaultOwner(): string {
  let host = "host", pid = "0";
  try {
    host = Deno.hostname();
    pid = String(Deno.pid);
  } catch { /* no --allow-sys, or a host (Deno Deploy) without them */ }
  return `${host}:${pid}:${crypto.randomUUID().slice(0, 8)}`;
}

export class JobRunner {
  readonly owner: string;
  readonly queue: JobQueue;
  private running = new Map<string, Promise<void>>();
  private active = new Map<string, JobRecord>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** Polling for work (start → stop). */
  private polling = false;
  /** The poll claiming now, if any: one at a time, so two polls never both see a free slot and fill it. */
  private claiming: Promise<void> | null = null;
  /** stop() was called: running jobs were handed back and must write nothing more. */
  private halted = false;

  constructor(store: Store, tesseraDb: string, private pool: TaskRunner, private opts: RunnerOptions) {
    this.owner = opts.owner ?? defaultOwner();
    this.queue = new JobQueue(store, tesseraDb);
  }

  /** Starts polling the queue. */
  start(): void {
    this.polling = true;
    this.halted = false;
    this.schedule(0);
  }

  /**
   * Stops claiming and hands the jobs still running back to the queue, so another instance can start
   * them at once instead of waiting out the lease; their computations' late writes are refused.
   */
  async stop(): Promise<void> {
    this.polling = false;
    this.halted = true;
    if (this.timer) clearTimeout(this.timer);
    await this.claiming; // a claim under way when stop() came hands its job back before this resolves
    await Promise.allSettled([...this.active.values()].map((job) => this.handBack(job)));
  }

  /** Gives a job this runner holds back to the queue, for another instance to claim at once. */
  private async handBack(job: JobRecord): Promise<void> {
    if (await this.queue.release(job)) this.opts.onEvent?.("released", job);
  }

  /** Resolves when every job this runner started has settled (tests). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  /** Claims and runs one job to its end; the job id, or null when the queue had nothing to claim. */
  async runOnce(): Promise<string | null> {
    const job = await this.queue.claim(this.owner, this.opts.leaseMs, this.opts.maxAttempts);
    if (!job) return null;
    this.opts.onEvent?.("claimed", job);
    await this.track(job);
    return job._id;
  }

  /** The next poll, replacing any poll already scheduled (one timer at a time). */
  private schedule(ms: number): void {
    if (!this.polling) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), ms);
  }

  /**
   * Fills free slots with claimed jobs; polls again after JOB_POLL_SECONDS. JOB_CONCURRENCY is this
   * instance's limit: one poll claims at a time, it counts the jobs this runner runs, and the claim itself
   * counts the running jobs the store says this owner holds.
   */
  private async poll(): Promise<void> {
    if (this.claiming) return; // the poll under way looks again before it ends
    this.claiming = this.claimFree().finally(() => this.claiming = null);
    await this.claiming;
    this.schedule(this.opts.pollMs);
  }

  /** Claims jobs while slots are free; a job claimed after stop() is handed back, not run. */
  private async claimFree(): Promise<void> {
    try {
      while (this.polling && this.running.size < this.opts.concurrency) {
        const job = await this.queue.claim(this.owner, this.opts.leaseMs, this.opts.maxAttempts, {
          limit: this.opts.concurrency,
        });
        if (!job) break;
        if (!this.polling) {
          await this.handBack(job);
          break;
        }
        this.opts.onEvent?.("claimed", job);
        this.track(job).then(() => this.schedule(0)); // a slot is free: look for more work at once
      }
    } catch (e) {
      if (!(e instanceof StoreUnavailableError)) {
        log("error", "job runner: cannot claim a job", { error: String(e) });
      }
    }
  }

  /** Runs a claimed job, known to stop() while it runs. */
  private track(job: JobRecord): Promise<void> {
    this.active.set(job._id, job);
    const done = this.execute(job).finally(() => {
      this.running.delete(job._id);
      this.active.delete(job._id);
    });
    this.running.set(job._id, done);
    return done;
  }

  /** Runs one claimed job: load, compute in the pool, store results; renews the lease all along. */
  private async execute(job: JobRecord): Promise<void> {
    let progress = 0;
    let lost = false;
    // Ends the computation in the pool once the job is no longer ours (lease lost, runner stopped).
    const cancel = new AbortController();
    const keep = async (p?: number) => {
      if (p !== undefined) progress = p;
      if (!lost && !this.halted && await this.queue.renew(job, this.opts.leaseMs, progress)) return;
      lost ||= !this.halted;
      cancel.abort();
      throw new LeaseLost();
    };
    const heartbeat = setInterval(() => keep().catch(() => {}), Math.max(50, this.opts.leaseMs / 3));
    let pages = 0;
    try {
      const spec = findMethod(job.task, job.dtype, job.method);
      if (!spec) {
        throw new InvalidInputError(`unknown method '${job.method}' for ${job.task} on ${job.dtype}`);
      }
      const expected = Math.max(1, job.rows);
      const data = await loadJobData(
        this.queue.store,
        job,
        spec.numericOnly,
        (rows) => keep(0.4 * Math.min(1, rows / expected)),
      );
      await keep(0.4);
      const input: CleaningInput = {
        task: job.task,
        dtype: job.dtype,
        method: job.method,
        params: job.params,
        columns: data.columns,
        times: data.times,
      };
      const out = await this.pool.run("cleaning.run", input, {
        timeoutMs: this.opts.timeoutMs,
        signal: cancel.signal,
      });
      await keep(0.8);
      const { entries, summary } = resultsOf(data, out);
      const meta = await writeResults(
        this.queue.store,
        this.queue.tesseraDb,
        job,
        entries,
        (f) => keep(0.8 + 0.19 * f),
      );
      pages = meta.pages;
      if (!await this.queue.succeed(job, summary, meta)) throw new LeaseLost();
      this.opts.onEvent?.("succeeded", job);
    } catch (e) {
      // a computation cancelled because the lease was lost fails as the lease, not as its own error
      await this.settle(job, lost ? new LeaseLost() : e, pages);
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** After a failure: lost lease → clean up and leave; store down → let the lease expire; else fail the job. */
  private async settle(job: JobRecord, e: unknown, pages: number): Promise<void> {
    if (e instanceof LeaseLost || this.halted) {
      if (!this.halted) this.opts.onEvent?.("lost", job);
      if (pages) await deleteResults(this.queue.store, this.queue.tesseraDb, job, pages).catch(() => {});
      return;
    }
    if (e instanceof StoreUnavailableError) return void this.opts.onEvent?.("store unavailable", job);
    const type = e instanceof InvalidInputError || e instanceof TypeError
      ? "invalid_input"
      : e instanceof LimitError
      ? "time_limit"
      : e instanceof WorkerUnavailableError
      ? "workers_unavailable"
      : "error";
    const message = e instanceof Error ? e.message : String(e);
    if (type === "error") {
      log("error", "job failed unexpectedly", {
        job_id: job._id,
        error: String(e),
        stack: e instanceof Error ? e.stack : undefined,
      });
    }
    await this.queue.fail(job, type, message).catch(() => {});
    this.opts.onEvent?.("failed", job, message);
  }
}

/** The runner the configuration describes (JOB_* variables), logging what it does (`log`, at info level). */
export function runnerFromConfig(config: Config, store: Store, pool: TaskRunner): JobRunner {
  return new JobRunner(store, config.TESSERA_DB, pool, {
    leaseMs: config.JOB_LEASE_SECONDS * 1000,
    pollMs: config.JOB_POLL_SECONDS * 1000,
    timeoutMs: config.JOB_TIMEOUT_SECONDS * 1000,
    maxAttempts: config.JOB_MAX_ATTEMPTS,
    concurrency: config.JOB_CONCURRENCY,
    onEvent: (event, job, detail) =>
      log(event === "failed" ? "warn" : "info", `job ${event}`, {
        job_id: job._id,
        event,
        attempt: job.attempt,
        detail,
      }),
  });
}

/**
 * Starts the runner the configuration asks for, wherever the app serves (Deno Deploy included, or jobs
 * posted there would stay queued); null when JOBS_ENABLED is off. Without Web Workers the service's pool
 * computes inline (workers/pool.ts); a pool that cannot fails each job with `workers_unavailable`.
 */
export function startJobRunner(config: Config, store: Store, pool: TaskRunner): JobRunner | null {
  if (!config.JOBS_ENABLED) return null;
  const runner = runnerFromConfig(config, store, pool);
  runner.start();
  return runner;
}
