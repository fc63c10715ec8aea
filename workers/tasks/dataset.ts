/**
 * A dataset read in a worker: the worker opens the store for itself (once per location, kept while it
 * lives), reads the rows (column pages where the store keeps them, handed to core as typed columns:
 * `pageColumns`) and builds typed columns there, so the event loop decodes no row. Columns come back in
 * shared memory, and so do document ids, packed (their characters and where each id ends:
 * core/spatial/doc_ids.ts), never as a million small strings. The same reads (`columnsFrom`, `frameFrom`)
 * run on the caller's store where no worker can open it: the callers' side is
 * services/datasets/column_reads.ts.
 */
import { IndividualsBuilder } from "../../core/spatial/load.ts";
import type { LoadedColumns } from "../../core/spatial/loaded_columns.ts";
import type { Mapping, MappingKey } from "../../core/spatial/mapping.ts";
import { type Frame, FrameBuilder } from "../../core/stats/frame.ts";
import { type Alloc, localAlloc, sharedAlloc } from "../../core/memory.ts";
import type { CollectionRef, Doc, Store, StoreLocation } from "../../store/store.ts";
import { type ColumnPage, valuesOf } from "../../store/column_pages.ts";
import type { ColumnBatch, TypedColumn } from "../../core/columns.ts";
import { openLocation } from "../../store/open.ts";
import { packIds } from "../../core/spatial/doc_ids.ts";

/** Documents per batch a read takes from the store. */
const BATCH = 5000;

const opened = new Map<string, Promise<Store>>();

/** This isolate's connection to the store at `location`, opened on first use. */
function storeAt(location: StoreLocation): Promise<Store> {
  const key = JSON.stringify(location);
  let store = opened.get(key);
  if (!store) {
    store = openLocation(location);
    store.catch(() => opened.delete(key));
    opened.set(key, store);
  }
  return store;
}

/** What a read of an audit's columns needs: where, which collection, the mapping resolved. */
export interface ColumnsRead {
  ref: CollectionRef;
  mapping: Mapping;
  explicit: MappingKey[];
}

/** What a whole read fills: documents in batches, or typed columns. */
interface ReadTarget {
  add(docs: Doc[]): void;
  addColumns(batch: ColumnBatch): void;
}

const OTHER: TypedColumn = { kind: "other" };

/**
 * A column page as core's typed columns: its number and list columns shared as they are (no copy), a JSON
 * column decoded only when the builder asks for its values. Per page, never per document. The page's number
 * and list columns have the shapes of core's on purpose, and the compiler checks it here; they stay two
 * types, as the stored format is the store's to version (PACK_FORMAT), whatever core's input becomes.
 */
export function pageColumns(page: ColumnPage): ColumnBatch {
  const fields = new Map<string, TypedColumn>();
  for (const [name, c] of page.fields) fields.set(name, c.kind === "json" ? OTHER : c);
  return {
    n: page.n,
    ids: page.ids,
    fields,
    values: (name) => valuesOf(page.fields.find(([f]) => f === name)?.[1], page.n),
  };
}

/** Feeds a whole read of `ref` to `target`: the store's column pages where it keeps them, else its documents. */
async function readInto(store: Store, ref: CollectionRef, target: ReadTarget, projection?: string[]) {
  const pages = await store.columnPages(ref); // typed arrays to copy, where the store keeps them
  if (pages) { for await (const page of pages) target.addColumns(pageColumns(page)); }
  else for await (const batch of store.stream(ref, { projection, batchSize: BATCH })) target.add(batch);
}

/** The mapped fields of `ref` as columns (the audit's, core/spatial/load.ts). */
export async function columnsFrom(
  store: Store,
  read: ColumnsRead,
  alloc: Alloc = localAlloc,
): Promise<LoadedColumns> {
  const builder = new IndividualsBuilder(read.mapping, read.explicit);
  await readInto(store, read.ref, builder, builder.fields());
  return builder.columns(alloc);
}

/** Every field of `ref` as a frame in shared memory (the valuation's, core/stats/frame.ts). */
export async function frameFrom(store: Store, ref: CollectionRef): Promise<Frame> {
  // the count is the pack's (one read) where the store keeps column pages; any other read grows its columns
  const expectedRows = await store.columnPages(ref) ? await store.count(ref) : 0;
  const builder = new FrameBuilder({ expectedRows, alloc: sharedAlloc });
  await readInto(store, ref, builder);
  return builder.finish();
}

/**
 * Worker task "dataset.columns": the columns and their document ids, packed (core/spatial/doc_ids.ts), in
 * shared memory: kept, they go to the event loop and to every worker without a copy, rather than a million
 * strings for the event loop's heap to make and keep.
 */
async function columnsTask(p: ColumnsRead & { location: StoreLocation }) {
  const loaded = await columnsFrom(await storeAt(p.location), p, sharedAlloc);
  const ids = loaded.ind.docIds;
  return {
    ...loaded,
    ind: { ...loaded.ind, docIds: Array.isArray(ids) ? packIds(ids, undefined, sharedAlloc) : ids },
  };
}

/** Entries for workers/tasks.ts. */
export const DATASET_TASKS = {
  "dataset.columns": columnsTask,
  "dataset.frame": async (p: { location: StoreLocation; ref: CollectionRef }) =>
    frameFrom(await storeAt(p.location), p.ref),
};
