/**
 * The store side of spatial write-back (`mitigate/writeback`): who already holds a field, the batched
 * write, and the task document's record of it, kept by a compare-and-set so concurrent write-backs
 * never lose each other's field or history entry. Which fields may be written is core/spatial/mitigate/writeback_policy.ts.
 */
import { NotFoundError } from "../../core/errors.ts";
import { writebackFields } from "../../core/spatial/mitigate/writeback_policy.ts";
import type { CollectionRef, Doc, Store } from "../../store/store.ts";

const BATCH = 1000;
/** Write-backs kept in a task's `writebacks` history. */
const HISTORY = 50;

/** What one write-back did: documents matched and changed, ids not found. */
export interface WritebackTotals {
  matched: number;
  modified: number;
  not_found: string[];
}

/**
 * The first of the documents `ids` that holds `field` already (null: none does). One pass over the
 * collection carrying only that field, stopping at the first hit: exact for every document at risk.
 */
export async function firstHolder(store: Store, ref: CollectionRef, field: string, ids: Set<string>) {
  for await (const batch of store.stream(ref, { projection: [field], batchSize: BATCH })) {
    const hit = batch.find((d) => Object.hasOwn(d, field) && ids.has(d._id));
    if (hit) return hit._id;
  }
  return null;
}

/** Records `field` as created by the task's write-backs; done before writing, so a retry may resume. */
export function claimWritebackField(store: Store, tasks: CollectionRef, name: string, field: string) {
  return updateTask(store, tasks, name, (task) => ({
    writeback_fields: [...new Set([...writebackFields(task), field])],
  }));
}

/** Sets `field` = y_pred on each listed document, in batches. */
export async function writePredictions(
  store: Store,
  ref: CollectionRef,
  field: string,
  preds: { doc_id: string; y_pred: number }[],
): Promise<WritebackTotals> {
  const total: WritebackTotals = { matched: 0, modified: 0, not_found: [] };
  for (let i = 0; i < preds.length; i += BATCH) {
    const part = preds.slice(i, i + BATCH).map((p) => ({ id: p.doc_id, set: { [field]: p.y_pred } }));
    const r = await store.updateFields(ref, part);
    total.matched += r.matched;
    total.modified += r.modified;
    total.not_found.push(...r.missing);
  }
  return total;
}

/** Notes a finished write-back on the task: `last_writeback` and the last HISTORY in `writebacks`. */
export function recordWriteback(
  store: Store,
  tasks: CollectionRef,
  name: string,
  record: Record<string, unknown>,
) {
  return updateTask(store, tasks, name, (task) => ({
    last_writeback: record,
    writebacks: [...(Array.isArray(task.writebacks) ? task.writebacks : []), record].slice(-HISTORY),
  }));
}

/**
 * Sets what `change` makes of the task document's current state, by a compare-and-set on a revision
 * token retried on a race. A task without a token gets a fresh one first; tokens are never reused, so
 * a change computed from a state that has changed since can never match.
 */
async function updateTask(
  store: Store,
  tasks: CollectionRef,
  name: string,
  change: (task: Doc) => Record<string, unknown>,
): Promise<void> {
  for (;;) {
    const task = await store.get(tasks, name);
    if (!task) throw new NotFoundError(`no task document for collection '${name}'`);
    const rev = task.writeback_rev;
    if (typeof rev !== "string") {
      await store.compareAndSet(tasks, name, {}, { writeback_rev: crypto.randomUUID() });
      continue;
    }
    const set = { ...change(task), writeback_rev: crypto.randomUUID() };
    if (await store.compareAndSet(tasks, name, { writeback_rev: rev }, set)) return;
  }
}
