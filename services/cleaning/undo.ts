/**
 * Undoing an approved job's write-back in its dataset: every cell it wrote goes back to what it held
 * before (an imputed cell to its `original`, absent again when it was absent; a field the write-back
 * created is removed), but only while the cell still holds what was written (`updateFields`' `where`):
 * a cell someone changed since is left alone and its document listed. Every write is idempotent (a cell
 * holding what the undo makes already counts as restored), so an undo cut short is simply run again.
 */
import type { FieldUpdate, Filter, Store } from "../../store/store.ts";
import type { JobRecord } from "./job_queue.ts";
import { allResults, type ResultEntry } from "./job_results.ts";
import { targetField, type WriteBackPlan, writtenFields } from "./writeback_plan.ts";
import { findDataset, registryRef } from "../datasets/registry.ts";

/** What an undo did: cells (a detection: rows) restored, documents left alone, documents gone. */
export interface UndoReport {
  restored: number;
  skipped: string[];
  missing: number;
  /** Fields that existed before the write-back: their earlier values were not kept, so they stay as written. */
  fields_not_restored: string[];
}

const BATCH = 1000;

/** A cell's value as a `where` can name it (results hold JSON scalars). */
const scalar = (v: unknown) => (v === undefined ? null : v) as Filter[string];

/** The update that takes one result entry back, or null when nothing of it can be. */
function undoOf(job: JobRecord, plan: WriteBackPlan, held: Set<string>, e: ResultEntry): FieldUpdate | null {
  const id = e._id as string;
  if (job.task === "impute") {
    const column = e.column as string;
    const field = targetField(plan, column);
    if (plan.target === "new_fields") {
      return held.has(field) ? null : { id, set: {}, unset: [field], where: { [field]: scalar(e.value) } };
    }
    const where = { [field]: scalar(e.value) };
    return e.original_absent === true
      ? { id, set: {}, unset: [field], where }
      : { id, set: { [field]: e.original ?? null }, where };
  }
  const written: [string, unknown][] = [[plan.flagField, e.label === 1]];
  if (plan.scoreField) written.push([plan.scoreField, e.score]);
  const mine = written.filter(([f]) => !held.has(f));
  if (!mine.length) return null;
  return {
    id,
    set: {},
    unset: mine.map(([f]) => f),
    where: Object.fromEntries(mine.map(([f, v]) => [f, scalar(v)])),
  };
}

/**
 * Takes back the write-back of `job` made under `plan`; `fieldsBefore` are the written fields the dataset
 * had before it (not removed). Updates go per imputed column, so no bulk names a document twice.
 */
export async function undoWriteBack(
  store: Store,
  tesseraDb: string,
  job: JobRecord,
  plan: WriteBackPlan,
  fieldsBefore: string[],
): Promise<UndoReport> {
  const ref = { db: job.database, collection: job.collection };
  const held = new Set(fieldsBefore);
  const skipped = new Set<string>(), missing = new Set<string>();
  let restored = 0;
  const pending = new Map<string, FieldUpdate[]>(); // by column: one update per document in each bulk
  const flush = async (key: string) => {
    const updates = pending.get(key) ?? [];
    pending.delete(key);
    if (!updates.length) return;
    const r = await store.updateFields(ref, updates);
    restored += r.matched;
    for (const id of r.skipped ?? []) skipped.add(id);
    for (const id of r.missing) missing.add(id);
  };
  for await (const items of allResults(store, tesseraDb, job)) {
    for (const e of items) {
      const update = undoOf(job, plan, held, e);
      if (!update) continue;
      const key = job.task === "impute" ? String(e.column) : "";
      const list = pending.get(key) ?? [];
      list.push(update);
      pending.set(key, list);
      if (list.length >= BATCH) await flush(key);
    }
  }
  for (const key of [...pending.keys()]) await flush(key);
  const sameFields = job.task === "impute" && plan.target === "same_fields";
  const notRestored = sameFields ? [] : writtenFields(job, plan).filter((f) => held.has(f));
  if (!skipped.size) await forgetCreatedFields(store, tesseraDb, job, plan, fieldsBefore);
  return { restored, skipped: [...skipped], missing: missing.size, fields_not_restored: notRestored };
}

/**
 * Drops from the dataset's registry the fields the write-back created (none is left once every cell was
 * taken back); an imputation into the same fields created none.
 */
async function forgetCreatedFields(
  store: Store,
  tesseraDb: string,
  job: JobRecord,
  plan: WriteBackPlan,
  fieldsBefore: string[],
): Promise<void> {
  if (job.task === "impute" && plan.target === "same_fields") return;
  const created = new Set(writtenFields(job, plan).filter((f) => !fieldsBefore.includes(f)));
  const rec = await findDataset(store, tesseraDb, job.data);
  if (!rec || rec.database !== job.database || !rec.columns.some((c) => created.has(c.name))) return;
  await store.patch(registryRef(tesseraDb), rec._id, {
    columns: rec.columns.filter((c) => !created.has(c.name)),
  });
}
