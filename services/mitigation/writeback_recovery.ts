/**
 * Finishing what a dead process left of a write-back (writeback_journal.ts) or of its undo: a write-back
 * still `writing` once its lease ran out is rolled back (the collection as before it, its pages
 * dropped, nothing logged: it never happened); an undo still running is finished and logged. Both are
 * idempotent, so a recovery that dies too is simply done again. Run at a start (waiting out a lease still
 * running, so a restart never serves a half-written field), by an instance's sweep every lease, and by
 * the next write-back or undo of the task.
 */
import type { Filter, Store } from "../../store/store.ts";
import { log } from "../../core/log.ts";
import { ConflictError } from "../../core/errors.ts";
import { decideOn } from "../decisions/outbox.ts";
import { touchDataset } from "../datasets/registry.ts";
import {
  dropPages,
  keepLease,
  leaseFromNow,
  writebackEntry,
  type WritebackRecord,
  writebacksRef,
} from "./writeback_log.ts";
import { restorePages } from "./writeback_restore.ts";
import { markUndone } from "./writeback_task.ts";
import { taskDocumentsRef } from "../tasks/task_documents.ts";

/** Runs an undo taken by `holder` to its end: the field restored, the undo marked done and logged. */
export async function finishUndo(
  store: Store,
  tesseraDb: string,
  rec: WritebackRecord,
  holder: string,
  leaseMs: number,
): Promise<WritebackRecord> {
  const ref = writebacksRef(tesseraDb);
  const lease = keepLease(store, ref, rec._id, "undo_holder", holder, leaseMs);
  const target = { db: rec.database, collection: rec.collection };
  const totals = await restorePages(store, tesseraDb, rec).finally(() => lease.stop());
  await touchDataset(store, tesseraDb, target);
  const undo = { ...rec.undo!, state: "done", ...totals, undone_at: new Date().toISOString() };
  const done = await decideOn(store, tesseraDb, ref, rec._id, { undo_holder: holder }, () => ({
    set: { undo_state: "done", undo_holder: null, lease_until: null, undo },
    entry: writebackEntry("writeback_undo", rec.undo!.by, rec, {
      restored: totals.restored,
      skipped: totals.skipped_count,
      missing: totals.missing,
    }, { written_by: rec.by, written_at: rec.written_at ?? null }),
  }));
  if (!done) throw new ConflictError(`the undo of write-back '${rec._id}' was taken over by another process`);
  // the undo is done and logged: its pages are no longer needed, and the task's history says it
  await dropPages(store, tesseraDb, rec);
  await markUndone(store, taskDocumentsRef(tesseraDb), rec.task, rec._id, undo.undone_at).catch(() => {});
  return done as unknown as WritebackRecord;
}

/** Rolls back a write-back whose writer died, once `holder` has taken it over. */
async function rollBackDead(
  store: Store,
  tesseraDb: string,
  rec: WritebackRecord,
  holder: string,
  leaseMs: number,
) {
  const ref = writebacksRef(tesseraDb);
  const lease = keepLease(store, ref, rec._id, "holder", holder, leaseMs);
  await restorePages(store, tesseraDb, rec).finally(() => lease.stop());
  await touchDataset(store, tesseraDb, { db: rec.database, collection: rec.collection });
  await store.compareAndSet(ref, rec._id, { holder }, {
    state: "rolled_back",
    holder: null,
    lease_until: null,
  });
  await dropPages(store, tesseraDb, rec);
}

export interface RecoverOptions {
  leaseMs: number;
  /** Only this task's write-backs. */
  task?: string;
  /** Wait out leases still running and recover those not renewed meanwhile (a start). */
  wait?: boolean;
}

/** Recovers every dead write-back and undo (of `task`, when given); how many. */
export async function recoverWritebacks(
  store: Store,
  tesseraDb: string,
  opts: RecoverOptions,
): Promise<number> {
  const ref = writebacksRef(tesseraDb);
  const scope: Filter = opts.task === undefined ? {} : { task: opts.task };
  const dead = [
    ...await store.list(ref, { ...scope, state: "writing" }),
    ...await store.list(ref, { ...scope, undo_state: "running" }),
  ] as unknown as WritebackRecord[];
  const done = await Promise.all(dead.map(async (seen) => {
    const left = Date.parse(seen.lease_until ?? "") - Date.now();
    if (left > 0 && !opts.wait) return false;
    if (left > 0) await new Promise((r) => setTimeout(r, left + 20));
    const writing = seen.state === "writing";
    const holderField = writing ? "holder" : "undo_holder";
    const holder = crypto.randomUUID();
    // taken only while neither its holder nor its lease changed since it was seen: a renewal means alive
    const taken = await store.compareAndSet(ref, seen._id, {
      [holderField]: seen[holderField] as string,
      lease_until: seen.lease_until as string,
    }, { [holderField]: holder, lease_until: leaseFromNow(opts.leaseMs) }) as unknown as
      | WritebackRecord
      | null;
    if (!taken) return false;
    if (writing) await rollBackDead(store, tesseraDb, taken, holder, opts.leaseMs);
    else await finishUndo(store, tesseraDb, taken, holder, opts.leaseMs);
    log("warn", `a write-back cut off by a stopped process was ${writing ? "rolled back" : "undone"}`, {
      writeback_id: seen._id,
      task: seen.task,
      field: seen.field,
    });
    return true;
  }));
  return done.filter(Boolean).length;
}

/** Recovers at a start (waiting out running leases), then sweeps every lease; `stop` ends the sweep. */
export async function startWritebackRecovery(store: Store, tesseraDb: string, leaseMs: number) {
  await recoverWritebacks(store, tesseraDb, { leaseMs, wait: true });
  const timer = setInterval(() => {
    recoverWritebacks(store, tesseraDb, { leaseMs }).catch((e) => {
      log("warn", "write-back recovery: cannot sweep", { error: String(e) });
    });
  }, leaseMs);
  return { stop: () => clearInterval(timer) };
}
