/**
 * Streams records into a collection in batches. All or nothing: when a record or the store fails
 * midway, the documents this import inserted are deleted again before the error goes on. The importer
 * gives each record without an `_id` one of its own before writing it, so it knows every id to undo
 * whatever the store managed before failing; records that bring an `_id` are never written over.
 */
import {
  type CollectionRef,
  type Doc,
  DocumentTooLargeError,
  DuplicateIdError,
  type Store,
} from "../../store/store.ts";
import {
  bumpGeneration,
  type ColumnInfo,
  type DatasetRecord,
  findDataset,
  recordImport,
  releaseDataset,
  reserveDataset,
} from "./registry.ts";
import { newId } from "../../store/ids.ts";
import { BadRequestError, ConflictError } from "../../core/errors.ts";
import { FieldProfiler } from "../../core/ingest/field_profile.ts";
import { checkImportTarget } from "../../core/ingest/import_target.ts";
import { type Position, readRecords, type UploadFormat } from "../../core/ingest/records.ts";
import type { Config } from "../../config.ts";

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
  /** The reader's position (`readRecords`), so a refused document is named by its line. */
  position?: Position;
}

/** What importing text needs: the store, and the configuration naming Tessera's own database. */
export interface ImportDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB">;
}

/** An upload as text (a request body, a file), its target's names checked by the caller in its own terms. */
export interface TextImport {
  target: CollectionRef;
  format: UploadFormat;
  text: AsyncIterable<string>;
  /** true: the new rows replace the collection's rows; false: they are appended. */
  replace: boolean;
}

/** Parses an upload and imports it all or nothing; one use case for the HTTP route and `deno task import`. */
export async function importText(deps: ImportDeps, input: TextImport): Promise<ImportResult> {
  const position: Position = { where: "" };
  const records = readRecords(input.format, input.text, position);
  return await importRecords(deps.store, deps.config.TESSERA_DB, input.target, records, {
    replace: input.replace,
    position,
  });
}

/** The batch being written: its documents, the ids made here, and where each record came from. */
interface Pending {
  docs: Doc[];
  fresh: Set<string>;
  places: string[];
}

/** Imports `records` into `target`, keeps the registry in step, and undoes itself on failure. */
export async function importRecords(
  store: Store,
  tesseraDb: string,
  target: CollectionRef,
  records: AsyncIterable<Record<string, unknown>>,
  opts: ImportOptions = {},
): Promise<ImportResult> {
  // the callers check the names in their own terms first; this is the safety net for any other caller
  checkImportTarget(target, tesseraDb, { db: ["target", "db"], collection: ["target", "collection"] });
  const { existing, reserved } = await claimName(store, tesseraDb, target);
  const oldIds = opts.replace ? await allIds(store, target) : [];
  const profile = new FieldProfiler(opts.replace ? [] : existing?.columns);
  const inserted: string[] = [];
  let pending: Pending = { docs: [], fresh: new Set(), places: [] };
  let writing = false;
  try {
    const flush = async () => {
      writing = true;
      await store.insertMany(target, pending.docs, { fresh: pending.fresh });
      writing = false;
      for (const d of pending.docs) inserted.push(d._id);
      pending = { docs: [], fresh: new Set(), places: [] };
    };
    let n = 0;
    for await (const rec of records) {
      profile.add(rec);
      n++;
      pending.places.push(opts.position?.where || `record ${n}`);
      if (typeof rec._id === "string") pending.docs.push(rec as Doc);
      else {
        const _id = newId();
        pending.fresh.add(_id);
        pending.docs.push({ ...rec, _id });
      }
      if (pending.docs.length >= (opts.batchSize ?? 1000)) await flush();
    }
    if (pending.docs.length) await flush();
  } catch (e) {
    if (reserved) await releaseDataset(store, tesseraDb, target.collection).catch(() => {});
    // a run may have read the rows while they were there: once they are gone, its generation is stale
    await undo(store, target, inserted, writing ? pending : null, e as Error, opts.replace)
      .finally(() => bumpGeneration(store, tesseraDb, target.collection).catch(() => {}));
  }
  // An empty upload would register a dataset without rows or columns (or, replacing, wipe one).
  if (!inserted.length) {
    if (reserved) await releaseDataset(store, tesseraDb, target.collection);
    throw new BadRequestError("the upload holds no rows; nothing was imported");
  }
  const columns = profile.result().map(({ name, type }) => ({ name, type }));
  let rows: number;
  try {
    if (oldIds.length) await store.deleteMany(target, oldIds);
    rows = await store.count(target);
    await recordImport(store, tesseraDb, target, rows, columns); // a new generation
  } catch (e) {
    // the rows changed but their record could not say so: the generation changes all the same
    await bumpGeneration(store, tesseraDb, target.collection).catch(() => {});
    throw e;
  }
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

/**
 * The dataset's registry record, after reserving the name when the dataset is new; a name that lives
 * in another database, or whose first import is still running, is a 409. A reservation lost to a
 * concurrent import is looked up again.
 */
async function claimName(
  store: Store,
  tesseraDb: string,
  target: CollectionRef,
): Promise<{ existing: DatasetRecord | null; reserved: boolean }> {
  for (;;) {
    const existing = await findDataset(store, tesseraDb, target.collection);
    if (existing && existing.database !== target.db) {
      throw new ConflictError(
        `a dataset named '${target.collection}' already exists in database '${existing.database}'`,
      );
    }
    if (existing?.importing) {
      // its first import is running: joining it would let that import's failure undo our rows' record
      throw new ConflictError(
        `the first import of '${target.collection}' into '${existing.database}' is still running; ` +
          "try again when it has finished",
      );
    }
    if (existing) return { existing, reserved: false };
    if (await reserveDataset(store, tesseraDb, target)) return { existing: null, reserved: true };
  }
}

/** The ids of every document of a collection. */
async function allIds(store: Store, ref: CollectionRef): Promise<string[]> {
  const ids: string[] = [];
  for await (const batch of store.stream(ref, { projection: [] })) ids.push(...batch.map((d) => d._id));
  return ids;
}

/**
 * Deletes what a failed import wrote, and throws the failure, naming the record a store refused.
 * Of a batch the store failed on, a typed refusal says how many leading documents it wrote; ids made
 * here are deleted whatever happened (no one else has them); a record's own id is deleted only when
 * known to be written by us, since an unknown failure may have stopped before it and the id may be
 * someone else's document. Those left in doubt are named in the message.
 */
async function undo(
  store: Store,
  ref: CollectionRef,
  inserted: string[],
  failed: Pending | null,
  cause: Error,
  replace = false,
): Promise<never> {
  let error = cause;
  if (failed) {
    const refused = cause instanceof DuplicateIdError || cause instanceof DocumentTooLargeError
      ? cause
      : null;
    const written = refused?.written ?? 0;
    const doubt: string[] = [];
    failed.docs.forEach((d, i) => {
      if (i < written || failed.fresh.has(d._id)) inserted.push(d._id);
      else if (!refused) doubt.push(d._id);
    });
    if (refused) error = named(refused, failed.places[refused.index], replace);
    else if (doubt.length) {
      error.message += ` (the store failed while writing ${failed.places[0]} to ${failed.places.at(-1)}; ` +
        `of those, ${doubt.length} records brought their own _id and may have been kept: ` +
        `${doubt.slice(0, 5).join(", ")}${doubt.length > 5 ? ", ..." : ""})`;
    }
  }
  try {
    await store.deleteMany(ref, inserted);
  } catch {
    error.message += ` (the ${inserted.length} documents inserted before the failure could not be removed: ` +
      `the first is ${inserted[0]}, the last ${inserted.at(-1)})`;
  }
  throw error;
}

/** A store's refusal of one document, as the error of the upload, naming the record's place. */
function named(refused: DuplicateIdError | DocumentTooLargeError, place: string, replace: boolean): Error {
  if (refused instanceof DocumentTooLargeError) return new BadRequestError(`${place}: ${refused.message}`);
  const hint = replace ? " (a replacing upload keeps the old rows until the new ones are in)" : "";
  return new ConflictError(`${place}: ${refused.message}${hint}`);
}
