/**
 * Running runs: a mitigation is listed from its request's start (state "running") with its phase and its
 * solver's best objective and bound, and can be cancelled.
 *
 * `LiveRun` keeps its run's header up to date: every TICK_MS it writes the progress when it changed (at
 * most every WRITE_MS) and renews a lease (`lease_until`) every third of it. A process that dies renews
 * nothing, so its run drops out of the list when the lease runs out and is removed by the task's next
 * save (runs.ts: pruneRuns). Each tick also reads whether someone asked to cancel the run on another
 * instance (`cancel_requested_at`, set by `cancelRun` in one compare-and-set), so the request stops
 * within a tick; on this instance `cancelRun` stops it at once. Stopping aborts the request's signal: its
 * pool tasks end (queued ones dropped, running ones' workers replaced: signalled_pool.ts), its run is
 * removed, and it answers 409 (CancelledError).
 */
import { ConflictError, NotFoundError } from "../../core/errors.ts";
import { log } from "../../core/log.ts";
import type { SolveProgress } from "../../core/spatial/mitigate/status.ts";
import { newId } from "../../store/ids.ts";
import { cancelled, type RunWriter } from "./run_writer.ts";
import {
  isRunning,
  leaseExpired,
  type RunDeps,
  type RunEntry,
  type RunHeader,
  type RunKind,
  type RunPhase,
  runsRef,
} from "./run_documents.ts";
import { noRun, runEntry } from "./runs.ts";
import { taskCollection } from "./task_collection.ts";

/** How often a running run's header is read for a cancel, and brought up to date when due. */
export const TICK_MS = 250;
/** The least time between two writes of a running run's progress. */
export const WRITE_MS = 500;
/** How long a running run stays listed without its request renewing it. */
export const RUN_LEASE_MS = 15_000;
/** How long `cancelRun` waits for the run to be stopped and removed before answering "cancelling". */
const CANCEL_WAIT_MS = 3_000;

/** The running runs of this process, by id: a cancel on this instance stops them at once. */
const live = new Map<string, LiveRun>();

/** A fresh run id (the console's Cancel button names its run before the request starts it). */
export const newRunId = (): string => newId();

/** A run listed while its request computes it (see the module comment). */
export class LiveRun {
  private controller = new AbortController();
  private progress: { phase: RunPhase; objective: number | null; bound: number | null };
  private dirty = false;
  private lastWrite = 0;
  private lastRenewal = Date.now();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private tick: Promise<void> = Promise.resolve();
  private stopped = false;
  private ended!: () => void;
  /** Settles when the run's request has ended (its run kept or removed). */
  readonly done = new Promise<void>((resolve) => (this.ended = resolve));

  private constructor(private deps: RunDeps, readonly writer: RunWriter, private leaseMs: number) {
    this.progress = { phase: "loading", objective: null, bound: null };
  }

  /**
   * Lists `writer`'s run as running from now on, leased for `leaseMs` (longer than RUN_LEASE_MS where a
   * task holds the event loop: an inline pool).
   */
  static async begin(deps: RunDeps, writer: RunWriter, leaseMs = RUN_LEASE_MS): Promise<LiveRun> {
    const run = new LiveRun(deps, writer, leaseMs);
    await writer.begin(run.stamped(), new Date(Date.now() + leaseMs).toISOString());
    live.set(writer.id, run);
    run.schedule();
    return run;
  }

  get id(): string {
    return this.writer.id;
  }

  /** Aborted when the run is cancelled. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The request moved on to `phase` (the solver's own phases come through `solver`). */
  phase(phase: RunPhase): void {
    this.update({ ...this.progress, phase });
  }

  /** The solver's progress, as the worker reports it. */
  readonly solver = (p: SolveProgress): void => this.update(p);

  /** The solver's final objective and bound, shown while the rest of the request runs. */
  solved(objective: number | null, bound: number | null): void {
    this.update({ ...this.progress, objective, bound });
  }

  /** Stops the run's request now (its pool tasks end, its run is removed, it answers 409). */
  cancel(): void {
    this.controller.abort(cancelled(this.writer.kind, this.id));
  }

  /** No more header writes (before the run is kept or removed). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** The request has ended: nothing more is written for it, and a cancel waiting for it is answered. */
  async end(): Promise<void> {
    this.stop();
    await this.tick;
    live.delete(this.id);
    this.ended();
  }

  private update(p: { phase: RunPhase; objective: number | null; bound: number | null }): void {
    this.progress = { phase: p.phase, objective: p.objective, bound: p.bound };
    this.dirty = true;
  }

  private stamped() {
    return { ...this.progress, at: new Date().toISOString() };
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.tick = this.refresh().finally(() => this.schedule());
    }, TICK_MS);
  }

  /** Writes the progress when it changed and the lease when due, and reads whether a cancel was asked. */
  private async refresh(): Promise<void> {
    const { store, config } = this.deps, runs = runsRef(config.TESSERA_DB);
    const now = Date.now();
    try {
      let h: RunHeader | null;
      const news = this.dirty && now - this.lastWrite >= WRITE_MS;
      if (news || now - this.lastRenewal >= this.leaseMs / 3) {
        this.dirty = false;
        this.lastWrite = now;
        const set = { progress: this.stamped(), lease_until: new Date(now + this.leaseMs).toISOString() };
        h = (await store.compareAndSet(runs, this.id, { state: "running" }, set)) as RunHeader | null;
        if (h) this.lastRenewal = now;
      } else h = (await store.get(runs, this.id)) as RunHeader | null;
      if (h?.cancel_requested_at && !this.stopped) this.cancel();
    } catch (e) {
      log("warn", "could not bring a running run's header up to date", { run_id: this.id, error: String(e) });
    }
  }
}

/** What a cancel answers: the run, and whether it has stopped ("cancelled") or is stopping. */
export interface CancelAnswer {
  run_id: string;
  kind: RunKind;
  state: "cancelled" | "cancelling";
  cancelled_at: string;
}

/** A run of the task by id (404 when unknown, another task's, or never listed: an audit being written). */
async function listedRun(deps: RunDeps, task: string, runId: string): Promise<RunHeader> {
  const h = (await deps.store.get(runsRef(deps.config.TESSERA_DB), runId)) as RunHeader | null;
  if (!h || h.task !== task || (h.state !== "running" && h.state !== "complete")) throw noRun(runId, task);
  return h;
}

/** Why a run that is not running cannot be cancelled (409). */
function notRunning(h: RunHeader): ConflictError {
  if (leaseExpired(h)) {
    return new ConflictError(
      `run '${h._id}' is not running: its server stopped without finishing it (it is removed with the ` +
        `task's next run)`,
    );
  }
  return new ConflictError(`run '${h._id}' has finished (${h.kind}, complete): there is nothing to cancel`);
}

/** Whether the run's header is gone (its request removed it) within `ms`. */
async function removedWithin(deps: RunDeps, runId: string, ms: number): Promise<boolean> {
  const runs = runsRef(deps.config.TESSERA_DB), until = Date.now() + ms;
  const here = live.get(runId);
  if (here) await Promise.race([here.done, new Promise((r) => setTimeout(r, ms))]);
  for (;;) {
    if (!await deps.store.get(runs, runId)) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Stops a running mitigation of the task: 404 for an unknown run, 409 for one that has finished or whose
 * server stopped. Marks the run (one compare-and-set: of a cancel and the run's completion exactly one
 * wins), stops it at once when it runs on this instance (else its own instance does within a tick), and
 * answers once it has stopped and its run is removed ("cancelled"), or after CANCEL_WAIT_MS
 * ("cancelling"). Cancelling a run already being cancelled answers the same.
 */
export async function cancelRun(
  deps: RunDeps,
  task: string,
  runId: string,
  by: string,
): Promise<CancelAnswer> {
  await taskCollection(deps, task);
  const runs = runsRef(deps.config.TESSERA_DB);
  let h = await listedRun(deps, task, runId);
  if (!isRunning(h)) throw notRunning(h);
  if (!h.cancel_requested_at) {
    const set = { cancel_requested_at: new Date().toISOString(), cancelled_by: by };
    const marked = await deps.store.compareAndSet(runs, runId, {
      state: "running",
      cancel_requested_at: null,
    }, set);
    if (marked) h = marked as RunHeader;
    else {
      // it completed, was cancelled by someone else, or failed and was removed meanwhile
      const now = (await deps.store.get(runs, runId)) as RunHeader | null;
      if (now?.state === "complete") throw notRunning(now);
      if (now?.state !== "running") {
        throw new NotFoundError(`run '${runId}' of task '${task}' ended without an answer (it failed)`);
      }
      h = now;
    }
  }
  live.get(runId)?.cancel();
  const stopped = await removedWithin(deps, runId, CANCEL_WAIT_MS);
  return {
    run_id: runId,
    kind: h.kind,
    state: stopped ? "cancelled" : "cancelling",
    cancelled_at: h.cancel_requested_at!,
  };
}

/** One run of the task as the list shows it (running or complete; 404 otherwise). */
export async function runStatus(deps: RunDeps, task: string, runId: string): Promise<RunEntry> {
  await taskCollection(deps, task);
  const h = await listedRun(deps, task, runId);
  if (leaseExpired(h)) throw noRun(runId, task);
  return runEntry(h);
}
