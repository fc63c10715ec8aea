/**
 * Undoing a spatial write-back (`POST .../mitigate/writeback/{writeback_id}/undo`): the collection as it
 * was before it, except documents someone changed since (skipped and listed, never overwritten). The undo
 * is taken by a compare-and-set (of two racing requests one runs it), held by a lease, and logged once
 * when it ends; asked again, it answers what it did. A later write-back of the same field is undone first.
 */
import type { Config } from "../../config.ts";
import type { Filter, Store } from "../../store/store.ts";
import { ConflictError, UnknownNameError } from "../../core/errors.ts";
import type { Decider } from "../decisions/entry.ts";
import {
  leaseFromNow,
  type UndoTotals,
  writebackLeaseMs,
  type WritebackRecord,
  writebacksRef,
} from "./writeback_log.ts";
import { finishUndo, recoverWritebacks } from "./writeback_recovery.ts";

export interface UndoInput {
  collectionName: string;
  writebackId: string;
  who: Decider;
}

/** The answer of an undo (the same every time it is asked). */
export interface UndoAnswer extends UndoTotals {
  writeback_id: string;
  new_field: string;
  undone_at: string;
  undone_by: Decider;
}

const answerOf = (rec: WritebackRecord): UndoAnswer => {
  const u = rec.undo!;
  return {
    writeback_id: rec._id,
    new_field: rec.field,
    restored: u.restored ?? 0,
    skipped: u.skipped ?? [],
    skipped_count: u.skipped_count ?? 0,
    missing: u.missing ?? 0,
    undone_at: u.undone_at!,
    undone_by: u.by,
  };
};

/** How the task's write-back `writebackId` was undone; null when it is unknown or not undone. */
export async function undoneWriteback(
  deps: { store: Store; config: Config },
  task: string,
  writebackId: string,
): Promise<UndoAnswer | null> {
  const rec = await deps.store.get(writebacksRef(deps.config.TESSERA_DB), writebackId) as unknown as
    | WritebackRecord
    | null;
  return rec?.task === task && rec.undo_state === "done" ? answerOf(rec) : null;
}

/** Undoes the task's write-back `writebackId`, or answers how it was undone. */
export async function undoWriteback(
  deps: { store: Store; config: Config },
  input: UndoInput,
): Promise<UndoAnswer> {
  const { store, config } = deps, db = config.TESSERA_DB, leaseMs = writebackLeaseMs(config);
  const ref = writebacksRef(db);
  for (;;) {
    const rec = await store.get(ref, input.writebackId) as unknown as WritebackRecord | null;
    if (!rec || rec.task !== input.collectionName) {
      throw new UnknownNameError(
        `no write-back '${input.writebackId}' of task '${input.collectionName}'`,
        ["path", "writeback_id"],
      );
    }
    // a write-back or undo of this task that a dead process left is finished first; then look again
    if (await recoverWritebacks(store, db, { leaseMs, task: rec.task })) continue;
    refuseUndo(rec);
    if (rec.undo_state === "done") return answerOf(rec);
    await refuseOutOfOrder(store, db, rec);
    const holder = crypto.randomUUID();
    const take: { expected: Filter; undo: unknown } = rec.undo_state === "running"
      // a running undo is here only when its lease ran out (refuseUndo): take it over, as recovery would
      ? { expected: { undo_holder: rec.undo_holder!, lease_until: rec.lease_until! }, undo: rec.undo! }
      : { expected: { state: "done", undo_state: null }, undo: undoStarted(input.who) };
    const taken = await store.compareAndSet(ref, rec._id, take.expected, {
      undo_state: "running",
      undo_holder: holder,
      lease_until: leaseFromNow(leaseMs),
      undo: take.undo,
    }) as unknown as WritebackRecord | null;
    if (!taken) continue; // another request started or finished it meanwhile: look again
    return answerOf(await finishUndo(store, db, taken, holder, leaseMs));
  }
}

const undoStarted = (who: Decider) => ({ state: "running", by: who, started_at: new Date().toISOString() });

/** 409 while the write-back or an undo of it runs, and for one that never finished. */
function refuseUndo(rec: WritebackRecord) {
  const id = rec._id;
  if (rec.state === "writing") {
    throw new ConflictError(
      `write-back '${id}' is still being written (since ${rec.started_at}); undo it once it ends`,
    );
  }
  if (rec.state !== "done") {
    throw new ConflictError(
      `write-back '${id}' did not finish and was rolled back: the collection is as before it, nothing to undo`,
    );
  }
  const alive = rec.lease_until !== null && Date.parse(rec.lease_until) > Date.now();
  if (rec.undo_state === "running" && alive) {
    throw new ConflictError(
      `write-back '${id}' is being undone (asked by ${rec.undo?.by.username ?? rec.undo?.by.sub} at ` +
        `${rec.undo?.started_at}); ask again once it ends`,
    );
  }
}

/** 409 when a later write-back of the same field stands: undoing this one first would undo part of it. */
async function refuseOutOfOrder(store: Store, tesseraDb: string, rec: WritebackRecord) {
  const same = await store.list(writebacksRef(tesseraDb), {
    task: rec.task,
    field: rec.field,
    state: "done",
  });
  const later = same.filter((w) => w._id > rec._id && w.undo_state !== "done").map((w) => w._id).sort();
  if (later.length) {
    throw new ConflictError(
      `write-back '${
        later.at(-1)
      }' wrote field '${rec.field}' after '${rec._id}': undo it first (newest first)`,
    );
  }
}
