/**
 * A mitigation's request as a run that lists from its start and can be cancelled: the run's writer and its
 * LiveRun (services/spatial/live_runs.ts), the request's pool tasks tied to the run's signal, and its end:
 * the answer kept and noted on the task, or, when it fails or is cancelled, whatever was written removed.
 * A cancelled request answers at once (CancelledError, 409); what it left running stops on its own, as
 * every pool task it starts from then on fails at once.
 */
import type { Mapping } from "../../core/spatial/mapping.ts";
import { withSignal } from "../../workers/signalled_pool.ts";
import type { SpatialDeps } from "../spatial/audit.ts";
import { LiveRun, RUN_LEASE_MS } from "../spatial/live_runs.ts";
import { type RunAnswer } from "../spatial/run_chunks.ts";
import { type RunSource } from "../spatial/run_documents.ts";
import { RunWriter } from "../spatial/run_writer.ts";
import { taskCollection } from "../spatial/task_collection.ts";
import { taskDocumentsRef } from "../tasks/task_documents.ts";

/** Which task a mitigation works on, who asked (noted on the task document) and how (kept with the run). */
export interface MitigationTarget {
  collectionName: string;
  requestedBy: string;
  /** The request body as validated, kept with the run. */
  request?: unknown;
  /** The run's id, made before the request (the console's Cancel button names it); else a new one. */
  runId?: string;
}

export type MitigationKind = "relabel" | "threshold";

/**
 * What a mitigation's work gets: the run, and the dependencies whose pool tasks end when it is cancelled;
 * `detached`: no run at all, nothing stored (detached_mitigation.ts, a toolkit request not kept).
 */
export interface Mitigation {
  live: Pick<LiveRun, "phase" | "solved" | "solver">;
  writer: Pick<RunWriter, "describe" | "writeMaps" | "writePredictions" | "keep">;
  deps: SpatialDeps;
  detached?: boolean;
}

/** Seconds a task may add beyond work_limit where it holds the event loop (services/mitigation/on_pool.ts's margin). */
const INLINE_MARGIN_MS = 120_000;

/**
 * Runs `work` as the run of a mitigation: listed as running from now on (after the task is found), its
 * pool tasks ended by a cancel; failing or cancelled, its run is removed. Inline, a task holds the event
 * loop until it ends, so the lease covers the work limit.
 */
export async function liveMitigation<T>(
  deps: SpatialDeps,
  target: MitigationTarget & { workLimitSeconds: number },
  kind: MitigationKind,
  work: (m: Mitigation) => Promise<T>,
): Promise<T> {
  const ref = await taskCollection(deps, target.collectionName);
  const writer = new RunWriter(deps, {
    kind,
    task: target.collectionName,
    source: { db: ref.db, collection: ref.collection, generation: null },
    mapping: {} as Mapping, // described once the rows are read
    requestedBy: target.requestedBy,
    request: target.request,
  }, target.runId);
  const lease = deps.pool.inline ? target.workLimitSeconds * 1000 + INLINE_MARGIN_MS : 0;
  const live = await LiveRun.begin(deps, writer, RUN_LEASE_MS + lease);
  try {
    const running = work({ live, writer, deps: { ...deps, pool: withSignal(deps.pool, live.signal) } });
    return await untilAborted(running, live.signal);
  } catch (e) {
    live.stop();
    await writer.abandon();
    throw live.signal.aborted ? live.signal.reason : e;
  } finally {
    await live.end();
  }
}

/** `work`'s outcome, or the signal's reason as soon as it aborts (work then ends on its own). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {}); // after an abort nobody awaits it
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) return stop();
    signal.addEventListener("abort", stop, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

/** Notes, once the rows are read, where they came from and the whole mapping read. */
export function describeRun(m: Mitigation, data: { source: RunSource; mapping: Mapping }): void {
  m.writer.describe(data.source, data.mapping);
  m.live.phase("preparing");
}

/**
 * Notes on the task document what was mitigated, with the whole mapping it read (omitted keys resolved
 * to the fields they read), so write-back knows every field the mitigation used.
 */
async function recordMitigation(
  deps: SpatialDeps,
  target: MitigationTarget,
  kind: MitigationKind,
  mapping: Mapping,
  nFlips: number,
  runId: string,
) {
  const at = new Date().toISOString();
  await deps.store.patch(taskDocumentsRef(deps.config.TESSERA_DB), target.collectionName, {
    last_mitigation: { kind, at, by: target.requestedBy, mapping, n_flips: nFlips, run_id: runId },
  });
}

/** Keeps the run of a mitigation's answer (complete, unless cancelled meanwhile), then notes it on the task. */
export async function keepMitigation<T extends { n_flips: number }>(
  m: Mitigation,
  target: MitigationTarget & { includeMaps?: boolean },
  run: { kind: MitigationKind; mapping: Mapping },
  answer: T,
): Promise<RunAnswer<T>> {
  m.live.phase("saving");
  const kept = await m.writer.keep(answer, target.includeMaps);
  if (m.detached) return kept;
  await recordMitigation(m.deps, target, run.kind, run.mapping, answer.n_flips, kept.run_id);
  return kept;
}
