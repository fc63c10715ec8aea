/**
 * Putting a write-back's field back as it was (an undo, or the roll-back of one cut off): each document
 * that still holds the value written gets its previous value again, or loses the field it did not have;
 * a document changed since by someone else is skipped, never overwritten (the update is guarded by a
 * `where` on the value written, so a change between the read and the write is skipped too). Running it
 * again changes nothing: a document already restored counts as restored.
 */
import type { CollectionRef, FieldUpdate, Filter, Store } from "../../store/store.ts";
import { own } from "../../core/data_keys.ts";
import { readPages, SKIPPED_LISTED, type UndoTotals, type WritebackRecord } from "./writeback_log.ts";

/** A field's state in a document: its value, or null when the document lacks it. */
type FieldState = { value: unknown } | null;

/** Every document's state of `field` (one streamed pass; the map holds the ids and the field only). */
async function fieldStates(
  store: Store,
  ref: CollectionRef,
  field: string,
): Promise<Map<string, FieldState>> {
  const out = new Map<string, FieldState>();
  for await (const batch of store.stream(ref, { projection: [field], batchSize: 1000 })) {
    for (const doc of batch) out.set(doc._id, Object.hasOwn(doc, field) ? { value: own(doc, field) } : null);
  }
  return out;
}

const same = (a: FieldState, b: FieldState) =>
  a === null || b === null ? a === b : JSON.stringify(a.value) === JSON.stringify(b.value);

/** Restores the field of every document the write-back `rec` wrote; what it did. */
export async function restorePages(
  store: Store,
  tesseraDb: string,
  rec: WritebackRecord,
): Promise<UndoTotals> {
  const ref = { db: rec.database, collection: rec.collection };
  const field = rec.field;
  const states = await fieldStates(store, ref, field);
  const totals: UndoTotals = { restored: 0, skipped: [], skipped_count: 0, missing: 0 };
  const skip = (id: string) => {
    if (totals.skipped.length < SKIPPED_LISTED) totals.skipped.push(id);
    totals.skipped_count++;
  };
  for await (const page of readPages(store, tesseraDb, rec)) {
    const absent = new Set(page.absent);
    const updates: FieldUpdate[] = [];
    page.ids.forEach((id, i) => {
      if (!states.has(id)) return void totals.missing++;
      const now = states.get(id)!;
      const before: FieldState = absent.has(i) ? null : { value: page.previous[i] };
      const written = page.written[i];
      if (same(now, { value: written })) {
        updates.push({
          id,
          set: before ? { [field]: before.value } : {},
          unset: before ? [] : [field],
          where: { [field]: written } as Filter,
        });
      } else if (same(now, before)) totals.restored++;
      else skip(id);
    });
    const r = await store.updateFields(ref, updates);
    totals.restored += r.matched;
    totals.missing += r.missing.length;
    r.skipped?.forEach(skip);
  }
  return totals;
}
