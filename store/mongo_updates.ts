/**
 * The store's bulk field updates on MongoDB (`updateFields`): one unordered bulkWrite per batch, the
 * per-update guard (`where`) and removal (`unset`), and what the bulk's counts cannot say worked out after.
 */
import type { AnyBulkWriteOperation, Collection, Document, ObjectId } from "mongodb";
import { type BulkResult, changes, type FieldUpdate, matches } from "./store.ts";
import { byIds, fromMongo, HEX24, idString, type MongoDoc, toMongoId, toQuery } from "./mongo_ids.ts";

/** Ops per bulkWrite: large enough to amortise round trips, small enough to keep requests modest. */
export const BULK_BATCH = 1000;

/**
 * One unordered bulkWrite by our own id form. bulkWrite reports counts, not which ids matched, so
 * only when some did not match do we ask which ids exist, and retry those stored as hex strings.
 */
export async function updateBatch(coll: Collection<MongoDoc>, part: FieldUpdate[], result: BulkResult) {
  const res = await coll.bulkWrite(part.map((u) => setOp(toMongoId(u.id), u)), { ordered: false });
  result.modified += res.modifiedCount;
  if (res.matchedCount === part.length) return void (result.matched += res.matchedCount);
  let found = await coll.find(byIds(part.map((u) => u.id)), { projection: { _id: 1 } }).toArray();
  const asString = new Set(
    found.filter((d) => typeof d._id === "string" && HEX24.test(d._id)).map((d) => d._id),
  );
  const retry = part.filter((u) => asString.has(u.id));
  if (retry.length) {
    result.modified += (await coll.bulkWrite(retry.map((u) => setOp(u.id, u)))).modifiedCount;
  }
  // bulkWrite counts, it does not say which: a guarded update whose document does not hold what it
  // set had a `where` that did not match (one holding it already changes nothing either way)
  if (part.some((u) => u.where)) found = await coll.find(byIds(part.map((u) => u.id))).toArray();
  const byString = new Map(found.map((d) => [idString(d._id), fromMongo(d)!]));
  for (const u of part) {
    const doc = byString.get(u.id);
    if (!doc) result.missing.push(u.id);
    else if (u.where && changes(doc, u.set, u.unset)) (result.skipped ??= []).push(u.id);
    else result.matched++;
  }
}

/**
 * FerretDB 1.x scans the whole collection for an update whose filter holds more than `_id` (a guarded
 * undo of 5,000 documents: minutes), so there the guards are checked on the documents as read, and the
 * updates whose guard holds go out by `_id` alone; a change landing between the read and the write is
 * then overwritten, a window MongoDB (which checks the filter in the write) does not have.
 */
export async function checkedHere(coll: Collection<MongoDoc>, updates: FieldUpdate[], result: BulkResult) {
  const out: FieldUpdate[] = [];
  for (let i = 0; i < updates.length; i += BULK_BATCH) {
    const part = updates.slice(i, i + BULK_BATCH);
    const found = await coll.find(byIds(part.filter((u) => u.where).map((u) => u.id))).toArray();
    const docs = new Map(found.map((d) => [idString(d._id), fromMongo(d)!]));
    for (const u of part) {
      const doc = u.where ? docs.get(u.id) : undefined;
      if (u.where && doc && !matches(doc, u.where) && changes(doc, u.set, u.unset)) {
        (result.skipped ??= []).push(u.id);
      } else out.push(u.where ? { id: u.id, set: u.set, unset: u.unset } : u);
    }
  }
  return out;
}

/** One update as a bulkWrite operation: its `_id`, its guard beside it, `$set` and `$unset`. */
function setOp(_id: string | ObjectId, u: FieldUpdate): AnyBulkWriteOperation<MongoDoc> {
  const { _id: _, ...fields } = u.set;
  const unset = (u.unset ?? []).filter((f) => f !== "_id");
  const update: Document = {};
  if (Object.keys(fields).length) update.$set = fields;
  if (unset.length) update.$unset = Object.fromEntries(unset.map((f) => [f, ""]));
  // `_id` at the top level, beside the guard: FerretDB then finds the document by its index, not a scan
  const filter = u.where ? { ...toQuery(u.where), _id } : { _id };
  // an update with nothing to set still matches (or not) its document, as on KV
  return Object.keys(update).length
    ? { updateOne: { filter, update } }
    : { updateOne: { filter, update: { $set: { _id } } } };
}
