/**
 * Removing a task's runs: each save keeps the task's last RUNS_KEPT complete runs, and finishes the removal
 * of any run a crash left "deleting", "writing" for longer than STALE_MS, or "running" past its lease.
 * Removing marks the header "deleting" first (no longer listed or read), deletes the chunks, then the header.
 */
import { log } from "../../core/log.ts";
import {
  chunkIds,
  chunksRef,
  leaseExpired,
  newestFirst,
  type RunDeps,
  type RunHeader,
  runsRef,
} from "./run_documents.ts";
import { RUNS_KEPT } from "./runs.ts";

/**
 * A run still "writing" after this long was left by a crash: a mitigation writes its run from before its
 * solver starts to its answer, and its work_limit is an hour at most.
 */
const STALE_MS = 6 * 60 * 60 * 1000;
/** Removes a run: marked "deleting" (no longer listed or read), its chunks deleted, then its header. */
export async function removeRun(deps: RunDeps, h: RunHeader): Promise<void> {
  const runs = runsRef(deps.config.TESSERA_DB);
  await deps.store.patch(runs, h._id, { state: "deleting" });
  await deps.store.discard(chunksRef(deps.config.TESSERA_DB), chunkIds(h));
  await deps.store.delete(runs, h._id);
}

/** The prunes under way (pruneAfterAnswer); each leaves the set when it is done. */
const pruning = new Set<Promise<void>>();

/**
 * Prunes a task's runs after the answer rather than before it (at LAR scale a relabel's run is hundreds of
 * chunks, and removing one is time the reviewer would wait for). Meanwhile the list shows the newest
 * RUNS_KEPT; a prune that fails or never runs (the process stopped) is finished by the task's next save.
 */
export function pruneAfterAnswer(deps: RunDeps, task: string): void {
  const done = pruneRuns(deps, task)
    .catch((e) => log("warn", "could not remove a task's older runs", { task, error: String(e) }))
    .finally(() => pruning.delete(done));
  pruning.add(done);
}

/** Resolves once the prunes started so far are done: the server waits for them before closing the store. */
export async function prunesSettled(): Promise<void> {
  while (pruning.size) await Promise.all(pruning);
}

/**
 * Keeps a task's last RUNS_KEPT complete runs and finishes what crashes left half written or removed (or
 * running past its lease).
 */
async function pruneRuns(deps: RunDeps, task: string): Promise<void> {
  const all = (await deps.store.list(runsRef(deps.config.TESSERA_DB), { task })) as RunHeader[];
  const now = Date.now();
  const complete = all.filter((h) => h.state === "complete").sort(newestFirst);
  const left = all.filter((h) =>
    h.state === "deleting" || (h.state === "writing" && now - Date.parse(h.created_at) > STALE_MS) ||
    leaseExpired(h, now)
  );
  for (const h of [...complete.slice(RUNS_KEPT), ...left]) await removeRun(deps, h);
}
