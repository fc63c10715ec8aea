/**
 * The store: collections of JSON documents, addressed by database and collection name.
 *
 * Two implementations share this contract (tests/store/contract_test.ts): `kv.ts` (Deno KV, the
 * embedded default) and `mongo.ts` (MongoDB). Every document has a string `_id`; a document's id orders
 * it by insertion (ids are ObjectId-style, time then counter), so `stream` returns an import in order.
 */
import type { ColumnPage } from "./column_pages.ts";
import { BadRequestError, ConflictError } from "../core/errors.ts";
import { type JsonPath, MAX_JSON_DEPTH, tooDeepField, tooDeepMessage } from "../core/json_depth.ts";
import { own, setOwn } from "../core/data_keys.ts";

/** A stored document: plain JSON with a string `_id`. */
export type Doc = { _id: string; [field: string]: unknown };

/** Where a collection lives. */
export interface CollectionRef {
  db: string;
  collection: string;
}

/** Equality filter on top-level fields (`{status: "done"}`). */
export type Filter = Record<string, string | number | boolean | null>;

/** One document's field updates in a bulk update. */
export interface FieldUpdate {
  id: string;
  set: Record<string, unknown>;
  /** Top-level fields to remove (an undo restores "absent"). */
  unset?: string[];
  /**
   * Applies the update only while the document's fields equal these (non-null values): an undo never
   * overwrites what someone changed since. A document that does not match is `skipped`, unless it holds
   * already what the update makes (then it is matched, unmodified: what MongoDB can tell apart).
   */
  where?: Filter;
}

export interface BulkResult {
  matched: number;
  modified: number;
  missing: string[];
  /** Documents whose `where` did not match, left as they were (present only when some were). */
  skipped?: string[];
}

export interface InsertOptions {
  /**
   * Ids in `docs` that the caller just made with `newId()`: unique by construction, so a store may skip
   * checking they are absent (on KV a checked write costs about twice an unchecked one).
   */
  fresh?: ReadonlySet<string>;
}

export interface StreamOptions {
  /** Top-level fields to keep (`_id` always comes along). */
  projection?: string[];
  /** Documents per yielded batch. */
  batchSize?: number;
}

/**
 * The whole contract; every method may throw StoreUnavailableError when the backend is unreachable, and
 * every write (put, patch, compareAndSet, insertMany, updateFields) throws DocumentTooDeepError, writing
 * nothing, when a document or a set of fields has a field nested more than MAX_JSON_DEPTH levels deep.
 */
export interface Store {
  readonly kind: "kv" | "mongo";
  get(ref: CollectionRef, id: string): Promise<Doc | null>;
  /** Creates or replaces the document with this id. */
  put(ref: CollectionRef, doc: Doc): Promise<void>;
  /** Sets top-level fields of one document; null when it does not exist. */
  patch(ref: CollectionRef, id: string, set: Record<string, unknown>): Promise<Doc | null>;
  /**
   * Sets top-level fields of one document only while its fields equal `expected`, in one atomic step;
   * the updated document, or null when it is missing or no longer matches. What a job claim, a lease
   * renewal or an approval needs so that of two instances racing for it exactly one wins.
   */
  compareAndSet(
    ref: CollectionRef,
    id: string,
    expected: Filter,
    set: Record<string, unknown>,
  ): Promise<Doc | null>;
  delete(ref: CollectionRef, id: string): Promise<boolean>;
  /**
   * Inserts new documents (ids assigned when absent, in order); returns their ids. Never replaces: an id
   * that exists, or comes twice, is a DuplicateIdError; a document over the backend's size limit is a
   * DocumentTooLargeError. Both say which document, and how many of the call's first documents were
   * written before it (none after it are).
   */
  insertMany(ref: CollectionRef, docs: Record<string, unknown>[], opts?: InsertOptions): Promise<string[]>;
  deleteMany(ref: CollectionRef, ids: string[]): Promise<number>;
  /**
   * Deletes those of `ids` that exist, without saying how many: KV then never reads their values (a
   * run's chunks are megabytes; counting them cost most of removing them).
   */
  discard(ref: CollectionRef, ids: string[]): Promise<void>;
  list(ref: CollectionRef, filter?: Filter, opts?: { limit?: number }): Promise<Doc[]>;
  count(ref: CollectionRef, filter?: Filter): Promise<number>;
  /** Up to n documents chosen at random. */
  sample(ref: CollectionRef, n: number): Promise<Doc[]>;
  /** Every document in id order, in batches, holding only one batch in memory. */
  stream(ref: CollectionRef, opts?: StreamOptions): AsyncIterable<Doc[]>;
  /**
   * Every document in id order as column pages (store/column_pages.ts), when the store keeps them for the
   * collection as it is now (a KV pack); null otherwise, and the caller reads `stream`.
   */
  columnPages(ref: CollectionRef): Promise<AsyncIterable<ColumnPage> | null>;
  /** Sets fields on many documents by id; reports matched, modified and missing ids. */
  updateFields(ref: CollectionRef, updates: FieldUpdate[]): Promise<BulkResult>;
  dropCollection(ref: CollectionRef): Promise<void>;
  /**
   * Where another isolate of this process (a worker) can open the same store for itself, or null (an
   * in-memory KV, the platform's default KV): see openLocation.
   */
  readonly location: StoreLocation | null;
  /** Checks the backend answers; throws StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** A store as a worker opens it again: a KV file's path, or a MongoDB connection string. */
export type StoreLocation = { kind: "kv"; path: string } | { kind: "mongo"; url: string };

/** The backend cannot be reached; the app answers 503. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "StoreUnavailableError";
  }
}

/** insertMany met an id that exists already (409); `index` is its place in the call. */
export class DuplicateIdError extends ConflictError {
  override name = "DuplicateIdError";
  constructor(readonly id: string, readonly index: number, readonly written: number) {
    super(`document id '${id}' exists already`);
  }
}

/** insertMany met a document larger than the backend stores (400); `index` is its place in the call. */
export class DocumentTooLargeError extends BadRequestError {
  override name = "DocumentTooLargeError";
  constructor(
    readonly index: number,
    readonly bytes: number,
    readonly max: number,
    readonly written: number,
  ) {
    super(`the document takes ${bytes} bytes, more than the ${max} the store accepts`);
  }
}

/**
 * A document with a field nested deeper than MAX_JSON_DEPTH levels (400), refused before any of the call's
 * documents is written: too large in depth, so whoever names an oversize document's place names this one's.
 * The serialisers of both stores recurse and overflow the stack a few thousand levels down.
 */
export class DocumentTooDeepError extends DocumentTooLargeError {
  override name = "DocumentTooDeepError";
  constructor(index: number, readonly field: string, path: JsonPath) {
    super(index, 0, MAX_JSON_DEPTH, 0);
    this.message = `field '${field}' ${tooDeepMessage(path)}`;
  }
}

/** Throws DocumentTooDeepError for the first document (or set of fields) nested too deep. */
export function refuseTooDeep(docs: readonly Record<string, unknown>[]): void {
  for (let i = 0; i < docs.length; i++) {
    const hit = tooDeepField(docs[i]);
    if (hit) throw new DocumentTooDeepError(i, hit.field, hit.path);
  }
}

/** Keeps `_id` and the named top-level fields a document has (its own: `constructor` is a field like any). */
export function project(doc: Doc, fields: string[] | undefined): Doc {
  if (!fields) return doc;
  const out: Doc = { _id: doc._id };
  for (const f of fields) if (Object.hasOwn(doc, f)) setOwn(out, f, doc[f]);
  return out;
}

/** True when every field of the filter equals the document's value. */
export function matches(doc: Doc, filter: Filter | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([k, v]) => own(doc, k) === v);
}

/** Whether setting these fields (and removing `unset`) would change the document. */
export function changes(doc: Doc, set: Record<string, unknown>, unset: string[] = []): boolean {
  return Object.entries(set).some(([k, v]) => JSON.stringify(own(doc, k)) !== JSON.stringify(v)) ||
    unset.some((k) => Object.hasOwn(doc, k));
}

/** The document with `set` applied and `unset` removed (`_id` kept). */
export function updated(doc: Doc, set: Record<string, unknown>, unset: string[] = []): Doc {
  const out: Doc = { ...doc, ...set, _id: doc._id };
  for (const k of unset) if (k !== "_id") delete out[k];
  return out;
}
