/**
 * The MongoDB store, through the official driver. `CollectionRef.db` names the database per call.
 * Our ids are strings; a 24-hex id (what `newId()` makes) is stored as a real ObjectId, so collections
 * written by other tools with ObjectId `_id`s read the same, and lookups by id try both forms. Lookups
 * send one exact `{_id: value}` per form rather than `$in`: FerretDB 1.x uses its _id index only for
 * that exact shape (and only as patched by scripts/ferretdb.ts); anything else scans the collection.
 */
import {
  BSON,
  type Collection,
  type Document,
  MongoBulkWriteError,
  MongoClient,
  type MongoClientOptions,
  MongoNetworkError,
  MongoOperationTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from "mongodb";
import {
  type BulkResult,
  type CollectionRef,
  type Doc,
  DocumentTooLargeError,
  DuplicateIdError,
  type FieldUpdate,
  type Filter,
  refuseTooDeep,
  type Store,
  type StoreLocation,
  StoreUnavailableError,
  type StreamOptions,
} from "./store.ts";
import { newId } from "./ids.ts";
import { byEachId, fromMongo, idForms, type MongoDoc, toMongoId, toQuery } from "./mongo_ids.ts";
import { BULK_BATCH, checkedHere, updateBatch } from "./mongo_updates.ts";

/**
 * FerretDB 1.x keeps one pooled SQLite connection per statement of an update command until the command
 * ends, and its pool holds 100: a bulk of 100 updates (or 3 concurrent bulks of 40) deadlocks the server.
 */
const FERRETDB_UPDATE_BATCH = 20;
/** MongoDB's document size limit (its `maxBsonObjectSize`). */
const MAX_BSON_BYTES = 16 * 1024 * 1024;
/** A down server must fail a request within seconds (503), not after the driver's 30 s default. */
const SELECTION_TIMEOUT_MS = 3000;

export class MongoStore implements Store {
  readonly kind = "mongo" as const;
  private bulkSize?: Promise<number>;
  private constructor(private client: MongoClient, readonly location: StoreLocation) {}

  /**
   * Validates the URL and returns at once; the driver connects on first use, so the app can start
   * while MongoDB is down and answer 503 (`/readyz` via `ping()`) until it comes back.
   */
  static connect(url: string, opts: { serverSelectionTimeoutMS?: number } = {}): Promise<MongoStore> {
    const options: MongoClientOptions = {};
    const fromUrl = /[?&]serverSelectionTimeoutMS=/i.test(url);
    if (opts.serverSelectionTimeoutMS !== undefined || !fromUrl) {
      options.serverSelectionTimeoutMS = opts.serverSelectionTimeoutMS ?? SELECTION_TIMEOUT_MS;
    }
    return Promise.resolve(new MongoStore(new MongoClient(url, options), { kind: "mongo", url }));
  }

  private coll(ref: CollectionRef): Collection<MongoDoc> {
    return this.client.db(ref.db).collection<MongoDoc>(ref.collection);
  }

  get(ref: CollectionRef, id: string): Promise<Doc | null> {
    return guard(async () => fromMongo(await byEachId(id, (f) => this.coll(ref).findOne(f), found)));
  }

  /** Replaces in place when either id form exists (keeping that form); otherwise inserts. */
  put(ref: CollectionRef, doc: Doc): Promise<void> {
    return guard(async () => {
      refuseTooDeep([doc]);
      const { _id, ...rest } = doc;
      const res = await byEachId(_id, (f) => this.coll(ref).replaceOne(f, rest), (r) => r.matchedCount > 0);
      if (res.matchedCount === 0) {
        await this.coll(ref).replaceOne({ _id: toMongoId(_id) }, rest, { upsert: true });
      }
    });
  }

  patch(ref: CollectionRef, id: string, set: Record<string, unknown>): Promise<Doc | null> {
    return guard(async () => {
      refuseTooDeep([set]);
      const { _id: _, ...fields } = set;
      const update = (f: Document) => this.coll(ref).findOneAndUpdate(f, { $set: fields }, AFTER);
      return fromMongo(await byEachId(id, update, found));
    });
  }

  /** findOneAndUpdate matches and sets in one server-side step, so a racing writer cannot interleave. */
  compareAndSet(
    ref: CollectionRef,
    id: string,
    expected: Filter,
    set: Record<string, unknown>,
  ): Promise<Doc | null> {
    return guard(async () => {
      refuseTooDeep([set]);
      const { _id: _, ...fields } = set;
      const exp = toQuery(expected);
      const query = (f: Document) => Object.keys(exp).length ? { $and: [f, exp] } : f;
      const update = (f: Document) => this.coll(ref).findOneAndUpdate(query(f), { $set: fields }, AFTER);
      return fromMongo(await byEachId(id, update, found));
    });
  }

  delete(ref: CollectionRef, id: string): Promise<boolean> {
    return guard(async () => {
      const res = await byEachId(id, (f) => this.coll(ref).deleteOne(f), (r) => r.deletedCount > 0);
      return res.deletedCount > 0;
    });
  }

  /** Ordered: the server stops at the first refused document, keeping those before it. */
  insertMany(ref: CollectionRef, docs: Record<string, unknown>[]): Promise<string[]> {
    return guard(async () => {
      refuseTooDeep(docs);
      const ids = docs.map((d) => typeof d._id === "string" ? d._id : newId());
      if (!docs.length) return ids;
      const stored = docs.map((d, i) => ({ ...d, _id: toMongoId(ids[i]) }));
      try {
        await this.coll(ref).insertMany(stored, { ordered: true });
      } catch (err) {
        throw refusal(err, ids, stored) ?? err;
      }
      return ids;
    });
  }

  deleteMany(ref: CollectionRef, ids: string[]): Promise<number> {
    return guard(async () => {
      let n = 0;
      for (let i = 0; i < ids.length; i += BULK_BATCH) {
        const ops = ids.slice(i, i + BULK_BATCH).flatMap((id) =>
          idForms(id).map((_id) => ({ deleteOne: { filter: { _id } } }))
        );
        n += (await this.coll(ref).bulkWrite(ops, { ordered: false }))
          .deletedCount;
      }
      return n;
    });
  }

  async discard(ref: CollectionRef, ids: string[]): Promise<void> {
    await this.deleteMany(ref, ids);
  }

  list(ref: CollectionRef, filter?: Filter, opts: { limit?: number } = {}): Promise<Doc[]> {
    return guard(async () => {
      const cursor = this.coll(ref).find(toQuery(filter), { sort: { _id: 1 }, limit: opts.limit });
      return (await cursor.toArray()).map((d) => fromMongo(d)!);
    });
  }

  count(ref: CollectionRef, filter?: Filter): Promise<number> {
    return guard(() => this.coll(ref).countDocuments(toQuery(filter)));
  }

  sample(ref: CollectionRef, n: number): Promise<Doc[]> {
    if (n <= 0) return Promise.resolve([]);
    return guard(async () => {
      try {
        const docs = await this.coll(ref).aggregate<MongoDoc>([{ $sample: { size: n } }]).toArray();
        return docs.map((d) => fromMongo(d)!);
      } catch (err) {
        // FerretDB 1.x (our test server) answers NotImplemented for $sample; only then fall back to a
        // uniform reservoir sample over one scan. Every other error, and real MongoDB, keeps $sample.
        if (!isSampleNotImplemented(err)) throw err;
        return await this.reservoir(ref, n);
      }
    });
  }

  /** MongoDB keeps no column pages: a whole read streams the documents. */
  columnPages(_ref: CollectionRef): Promise<null> {
    return Promise.resolve(null);
  }

  async *stream(ref: CollectionRef, opts: StreamOptions = {}): AsyncIterable<Doc[]> {
    const size = opts.batchSize ?? 1000;
    const projection = opts.projection && Object.fromEntries(opts.projection.map((f) => [f, 1]));
    const cursor = this.coll(ref).find({}, { sort: { _id: 1 }, projection, batchSize: size });
    try {
      let batch: Doc[] = [];
      const next = () => guard(() => cursor.next());
      for (let doc = await next(); doc; doc = await next()) {
        batch.push(fromMongo(doc)!);
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    } finally {
      await cursor.close().catch(() => {});
    }
  }

  updateFields(ref: CollectionRef, updates: FieldUpdate[]): Promise<BulkResult> {
    return guard(async () => {
      refuseTooDeep(updates.map((u) => u.set));
      const result: BulkResult = { matched: 0, modified: 0, missing: [] };
      const size = updates.length ? await this.updateBulkSize() : 0;
      if (size === FERRETDB_UPDATE_BATCH && updates.some((u) => u.where)) {
        updates = await checkedHere(this.coll(ref), updates, result);
      }
      for (let i = 0; i < updates.length; i += size) {
        await updateBatch(this.coll(ref), updates.slice(i, i + size), result);
      }
      return result;
    });
  }

  dropCollection(ref: CollectionRef): Promise<void> {
    return guard(async () => {
      await this.coll(ref).drop().catch((err) => {
        if (!(err instanceof MongoServerError && err.codeName === "NamespaceNotFound")) throw err;
      });
    });
  }

  ping(): Promise<void> {
    return guard(async () => void await this.client.db("admin").command({ ping: 1 }));
  }

  close(): Promise<void> {
    return this.client.close();
  }

  /** Asks the server once whether it is FerretDB (buildInfo says so), which needs smaller update bulks. */
  private updateBulkSize(): Promise<number> {
    this.bulkSize ??= this.client.db("admin").command({ buildInfo: 1 }).then(
      (info) => "ferretdbVersion" in info ? FERRETDB_UPDATE_BATCH : BULK_BATCH,
      (err) => {
        this.bulkSize = undefined; // ask again once the server answers
        throw err;
      },
    );
    return this.bulkSize;
  }

  /** Uniform sample of n in one pass holding n documents (Algorithm R). */
  private async reservoir(ref: CollectionRef, n: number): Promise<Doc[]> {
    const out: Doc[] = [];
    let seen = 0;
    for await (const batch of this.stream(ref)) {
      for (const doc of batch) {
        const j = seen < n ? seen : Math.floor(Math.random() * (seen + 1));
        if (j < n) out[j] = doc;
        seen++;
      }
    }
    return out;
  }
}

const found = (doc: unknown) => doc !== null;
const AFTER = { returnDocument: "after" } as const;

/**
 * The store's typed refusals from the driver's: a duplicate key (E11000) reports where the ordered
 * insert stopped. An oversize document fails in several ways (the driver's size check, or BSON's 17 MiB
 * buffer overflowing before it with a RangeError, or the server), so after any other failure the
 * documents are measured, which costs nothing on success.
 */
function refusal(err: unknown, ids: string[], stored: Document[]): Error | null {
  const written = err instanceof MongoBulkWriteError ? err.result.insertedCount : 0;
  if (err instanceof MongoBulkWriteError && err.code === 11000) {
    const index = [err.writeErrors].flat()[0]?.index ?? written;
    return new DuplicateIdError(ids[index], index, written);
  }
  for (let i = 0; i < stored.length; i++) {
    const bytes = BSON.calculateObjectSize(stored[i]);
    // the driver refuses a size equal to the maximum too
    if (bytes >= MAX_BSON_BYTES) {
      return new DocumentTooLargeError(i, bytes, MAX_BSON_BYTES - 1, Math.min(written, i));
    }
  }
  return null;
}

function isSampleNotImplemented(err: unknown): boolean {
  return err instanceof MongoServerError && err.code === 238 && err.message.includes("$sample");
}

/**
 * Network-level driver errors mean the server is unreachable; they become StoreUnavailableError. A
 * closed topology too: operations queued while the first connection attempt fails get that error.
 */
function isUnavailable(err: unknown): boolean {
  return err instanceof MongoServerSelectionError || err instanceof MongoNetworkError ||
    err instanceof MongoOperationTimeoutError || err instanceof MongoTopologyClosedError;
}

/** Runs one driver call, translating unreachable-server errors and passing everything else through. */
async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUnavailable(err)) {
      throw new StoreUnavailableError(`MongoDB unreachable: ${(err as Error).message}`, { cause: err });
    }
    throw err;
  }
}
