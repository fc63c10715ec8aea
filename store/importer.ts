/**
 * Streams records into a collection in batches. All or nothing: when a record or the store fails
 * midway, the documents this import inserted are deleted again before the error goes on.
 */
import type { CollectionRef, Store } from "./store.ts";
import { type ColumnInfo, findDataset, recordImport } from "./catalog.ts";
import { BadRequestError, ConflictError } from "../core/errors.ts";
import { FieldProfiler } from "../core/ingest/profile.ts";

export interface ImportResult {
  inserted: number;
  replaced: number;
  database: string;
  collection: string;
  dataset_id: string;
  rows: number;
  columns: ColumnInfo[];
}

export interface ImportOptions {
  /** Replace the collection's documents (the old ones go only once the new ones are all in). */
  replace?: boolean;
  batchSize?: number;
}

/** Imports `records` into `target`, keeps the catalogue in step, and undoes itself on failure. */
export async function importRecords(
  store: Store,
  tesseraDb: string,
  target: CollectionRef,
  records: AsyncIterable<Record<string, unknown>>,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  const existing = await findDataset(store, tesseraDb, target.collection);
  if (existing && existing.database !== target.db) {
    throw new ConflictError(
      `a dataset named '${target.collection}' already exists in database '${existing.database}'`,
    );
  }
  const oldIds = opts.replace ? await allIds(store, target) : [];
  const profile = new FieldProfiler(opts.replace ? [] : existing?.columns);
  const inserted: string[] = [];
  try {
    let batch: Record<string, unknown>[] = [];
    const flush = async () => {
      inserted.push(...await store.insertMany(target, batch));
      batch = [];
    };
    for await (const rec of records) {
      profile.add(rec);
      batch.push(rec);
      if (batch.length >= (opts.batchSize ?? 1000)) await flush();
    }
    if (batch.length) await flush();
  } catch (e) {
    await undo(store, target, inserted, e as Error);
  }
  // An empty upload would catalogue a dataset without rows or columns (or, replacing, wipe one).
  if (!inserted.length) throw new BadRequestError("the upload holds no rows; nothing was imported");
  if (oldIds.length) await store.deleteMany(target, oldIds);
  const rows = await store.count(target);
  const columns = profile.result().map(({ name, type }) => ({ name, type }));
  await recordImport(store, tesseraDb, target, rows, columns);
  return {
    inserted: inserted.length,
    replaced: oldIds.length,
    database: target.db,
    collection: target.collection,
    dataset_id: target.collection,
    rows,
    columns,
  };
}

/** The ids of every document of a collection. */
async function allIds(store: Store, ref: CollectionRef): Promise<string[]> {
  const ids: string[] = [];
  for await (const batch of store.stream(ref, { projection: [] })) ids.push(...batch.map((d) => d._id));
  return ids;
}

/** Deletes what a failed import inserted; if even that fails, says exactly what stayed. */
async function undo(store: Store, ref: CollectionRef, ids: string[], cause: Error): Promise<never> {
  try {
    await store.deleteMany(ref, ids);
  } catch {
    cause.message += ` (the ${ids.length} documents inserted before the failure could not be removed: ` +
      `their ids run from ${ids[0]} to ${ids.at(-1)})`;
  }
  throw cause;
}
