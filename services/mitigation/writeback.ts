/**
 * Spatial write-back (spec 2 `mitigate/writeback`): mitigated predictions into a new field of each
 * listed document. Which fields may be written is core/spatial/mitigate/writeback_policy.ts; here are
 * the use case, who already holds a field, the batched write, and the task document's record of it,
 * kept by a compare-and-set so concurrent write-backs never lose each other's field or history entry.
 */
import type { Config } from "../../config.ts";
import { InvalidInputError, NotFoundError } from "../../core/errors.ts";
import {
  createdByTask,
  writebackFields,
  writebackRefusal,
} from "../../core/spatial/mitigate/writeback_policy.ts";
import type { CollectionRef, Doc, Store } from "../../store/store.ts";
import { taskCollection } from "../spatial/task_collection.ts";
import { taskDocumentsRef } from "../tasks/task_documents.ts";

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
 * One prediction to write, as the request lists it (kept in its wire shape: a write-back may list a
 * million, and each is written as it is).
 */
export interface Prediction {
  doc_id: string;
  y_pred: number;
}

/** What a write-back asks: the task, the new field, the predictions, and who asks. */
export interface WritebackInput {
  collectionName: string;
  newField: string;
  preds: Prediction[];
  requestedBy: string;
}

/** The answer of `mitigate/writeback`. */
export interface WritebackAnswer extends WritebackTotals {
  new_field: string;
  written_at: string;
}

/**
 * Writes a reviewer's mitigated predictions into a new field, refusing any field data may live in (422
 * on `new_field`), so a write-back never overwrites what it did not create.
 */
export async function writeBack(
  deps: { store: Store; config: Config },
  input: WritebackInput,
): Promise<WritebackAnswer> {
  const { store } = deps, { collectionName, newField } = input;
  const ref = await taskCollection(deps, collectionName);
  const refuse = (holder: string | null) => {
    const why = writebackRefusal(ref.task, newField, holder);
    if (why) throw new InvalidInputError(`new_field '${newField}' ${why}`, ["body", "new_field"]);
  };
  refuse(null);
  // a request rule, checked here rather than in the schema so that a refused field is named first
  const ids = new Set<string>();
  input.preds.forEach((p, i) => {
    if (ids.has(p.doc_id)) {
      throw new InvalidInputError(`doc_id '${p.doc_id}' is listed twice`, ["body", "preds", i, "doc_id"]);
    }
    ids.add(p.doc_id);
  });
  const tasks = taskDocumentsRef(deps.config.TESSERA_DB);
  if (!createdByTask(ref.task, newField)) {
    refuse(await firstHolder(store, ref, newField, ids));
    // claimed before writing: if the write stops halfway, a retry may still write into the field
    await claimWritebackField(store, tasks, collectionName, newField);
  }
  const total = await writePredictions(store, ref, newField, input.preds);
  const written_at = new Date().toISOString();
  await recordWriteback(store, tasks, collectionName, {
    field: newField,
    at: written_at,
    by: input.requestedBy,
    ...total,
    not_found: total.not_found.length,
  });
  return { new_field: newField, ...total, written_at };
}

/**
 * The first of the documents `ids` that holds `field` already (null: none does). One pass over the
 * collection carrying only that field, stopping at the first hit: exact for every document at risk.
 */
async function firstHolder(store: Store, ref: CollectionRef, field: string, ids: Set<string>) {
  for await (const batch of store.stream(ref, { projection: [field], batchSize: BATCH })) {
    const hit = batch.find((d) => Object.hasOwn(d, field) && ids.has(d._id));
    if (hit) return hit._id;
  }
  return null;
}

/** Records `field` as created by the task's write-backs; done before writing, so a retry may resume. */
function claimWritebackField(store: Store, tasks: CollectionRef, name: string, field: string) {
  return updateTask(store, tasks, name, (task) => ({
    writeback_fields: [...new Set([...writebackFields(task), field])],
  }));
}

/** Sets `field` = y_pred on each listed document, in batches. */
async function writePredictions(
  store: Store,
  ref: CollectionRef,
  field: string,
  preds: Prediction[],
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
function recordWriteback(
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
