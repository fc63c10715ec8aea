/**
 * How the store's ids and filters map to MongoDB's: an id of ours that is 24 lowercase hex digits is an
 * ObjectId there (as MongoDB makes them), any other a string, and a document another writer stored under
 * the other form is found too; equality filters mean exactly what they mean on the embedded store.
 */
import { type Document, ObjectId } from "mongodb";
import type { Doc, Filter } from "./store.ts";

/** Loosely typed on purpose: `_id` may be an ObjectId or a string, whoever wrote the document. */
export type MongoDoc = Document & { _id: ObjectId | string };

export const HEX24 = /^[0-9a-f]{24}$/;

/** Lowercase 24-hex ids become ObjectIds (their hex round-trips exactly); everything else stays a string. */
export function toMongoId(id: string): string | ObjectId {
  return HEX24.test(id) ? new ObjectId(id) : id;
}

/** The forms a stored `_id` may take, ours first. */
export function idForms(id: string): (string | ObjectId)[] {
  return HEX24.test(id) ? [new ObjectId(id), id] : [id];
}

/** Runs a single-document operation per id form until `hit` says it found its document. */
export async function byEachId<R>(
  id: string,
  fn: (f: Document) => Promise<R>,
  hit: (r: R) => boolean,
): Promise<R> {
  let res!: R;
  for (const _id of idForms(id)) if (hit(res = await fn({ _id }))) break;
  return res;
}

/** Matches a document whichever form another writer gave its `_id` (one query; no index on FerretDB). */
export function byId(id: string): Document {
  return HEX24.test(id) ? { _id: { $in: [new ObjectId(id), id] } } : { _id: id };
}

export function byIds(ids: string[]): Document {
  return { _id: { $in: ids.flatMap(idForms) } };
}

export function idString(id: unknown): string {
  return id instanceof ObjectId ? id.toHexString() : String(id);
}

export function fromMongo(doc: MongoDoc | null): Doc | null {
  return doc && { ...doc, _id: idString(doc._id) };
}

/**
 * Exact equality as the KV store means it: Mongo's `{f: null}` also matches a missing field, so null
 * asks for the BSON null type, and `{f: "x"}` also matches arrays holding "x", so arrays are excluded.
 */
export function toQuery(filter: Filter | undefined): Document {
  const q: Document = {};
  for (const [k, v] of Object.entries(filter ?? {})) {
    if (k === "_id") Object.assign(q, byId(String(v)));
    else q[k] = v === null ? { $type: "null" } : { $eq: v, $not: { $type: "array" } };
  }
  return q;
}
