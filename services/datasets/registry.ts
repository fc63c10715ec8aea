/**
 * The dataset registry: one record per dataset (id = the collection name, which is the
 * `dataset_id` / `dataset_name` / `dataset-id` of the specs) naming the database it lives in.
 */
import { type CollectionRef, type Doc, DuplicateIdError, type Store } from "../../store/store.ts";
import type { ValueType } from "../../core/ingest/values.ts";

export interface ColumnInfo {
  name: string;
  type: ValueType | "mixed";
}

export interface Distribution {
  database: string;
  collection: string;
  rows: number;
  created_at: string;
  updated_at: string;
}

export interface DatasetRecord extends Doc {
  dataset_name: string;
  database: string;
  collection: string;
  rows: number;
  columns: ColumnInfo[];
  distributions: Distribution[];
  created_at: string;
  updated_at: string;
  /**
   * Changes whenever the dataset's rows change by an import (first, replacing or appending, and an
   * import that failed and was undone): a run records the generation it read, and a write-back of its
   * predictions is refused once it differs. Writing a new field into the rows does not change it.
   * Absent on records made before generations existed.
   */
  generation?: string;
  /**
   * Changes whenever a write changes values in the rows without an import: a write-back's new field, an
   * approved cleaning job. With the generation it names the rows' content for the prepared datasets
   * (prepared.ts), so every write, by any instance on the same store, makes them read the rows again.
   */
  revision?: string;
  /**
   * The dataset's target: the column feature importance predicts when asked for none. Named by an import's
   * `target` option, else kept from the previous record while the column is still there, else the last
   * column of the import. Columns added later (an approved cleaning job's `is_anomaly`, a write-back's new
   * field) do not change it. Absent on records made before targets were recorded (see recordedTarget).
   */
  target_column?: string;
  /**
   * Set while the dataset's first import runs (a reservation of the name, made while the import holds the
   * name's journal head: import_journal.ts); the record the import writes at its end has none.
   */
  importing?: boolean;
}

/** Where the registry itself is kept. */
export const registryRef = (tesseraDb: string): CollectionRef => ({ db: tesseraDb, collection: "datasets" });

/** The registry record of a dataset, or null. */
export async function findDataset(
  store: Store,
  tesseraDb: string,
  name: string,
): Promise<DatasetRecord | null> {
  return (await store.get(registryRef(tesseraDb), name)) as DatasetRecord | null;
}

/** Every registered dataset, by name. */
export async function listDatasets(store: Store, tesseraDb: string): Promise<DatasetRecord[]> {
  const all = (await store.list(registryRef(tesseraDb))) as DatasetRecord[];
  return all.sort((a, b) => a.dataset_name.localeCompare(b.dataset_name));
}

/** The registry record of `target` as an import leaves it, over the previous one if any. */
export function datasetRecord(
  target: CollectionRef,
  rows: number,
  columns: ColumnInfo[],
  prev: DatasetRecord | null,
  targetColumn?: string,
): DatasetRecord {
  const now = new Date().toISOString();
  const has = (name: string | undefined) => name !== undefined && columns.some((c) => c.name === name);
  const before = prev ? recordedTarget(prev) : undefined;
  const target_column = [targetColumn, before].find(has) ?? columns.at(-1)?.name;
  const dist: Distribution = {
    database: target.db,
    collection: target.collection,
    rows,
    created_at: prev?.distributions[0]?.created_at ?? now,
    updated_at: now,
  };
  return {
    _id: target.collection,
    dataset_name: target.collection,
    database: target.db,
    collection: target.collection,
    rows,
    columns,
    distributions: [dist],
    created_at: prev?.created_at ?? now,
    updated_at: now,
    generation: crypto.randomUUID(),
    ...(target_column === undefined ? {} : { target_column }),
  };
}

/**
 * The column a dataset's rows are predicted by default: its recorded target, or on a record made before
 * targets were recorded the last of its registered columns (those of its imports; a write-back records its
 * target before adding any). Undefined for a record without columns.
 */
export function recordedTarget(rec: Pick<DatasetRecord, "target_column" | "columns">): string | undefined {
  return rec.target_column ?? rec.columns.at(-1)?.name;
}

/** Records (or updates) a dataset after an import into `target`. */
export async function recordImport(
  store: Store,
  tesseraDb: string,
  target: CollectionRef,
  rows: number,
  columns: ColumnInfo[],
): Promise<DatasetRecord> {
  const rec = datasetRecord(target, rows, columns, await findDataset(store, tesseraDb, target.collection));
  await store.put(registryRef(tesseraDb), rec);
  return rec;
}

/**
 * Claims a new dataset name for `target` before its first import writes anything: an insert, which
 * fails (false) when another import took the name meanwhile, so two uploads of one name into two
 * databases cannot both pass the check. The record shows 0 rows until the import's own record replaces it.
 */
export async function reserveDataset(
  store: Store,
  tesseraDb: string,
  target: CollectionRef,
): Promise<boolean> {
  try {
    await store.insertMany(registryRef(tesseraDb), [{
      ...datasetRecord(target, 0, [], null),
      importing: true,
    }]);
    return true;
  } catch (e) {
    if (e instanceof DuplicateIdError) return false;
    throw e;
  }
}

/** Gives up a reservation whose import failed (no other import writes a reserved name, see claimName). */
export async function releaseDataset(store: Store, tesseraDb: string, name: string): Promise<void> {
  await store.deleteMany(registryRef(tesseraDb), [name]);
}

/**
 * Gives the dataset a new generation without any other change: what an import that failed does once it
 * has removed its rows again, since a run may have read them meanwhile. Nothing when it has no record.
 */
export async function bumpGeneration(store: Store, tesseraDb: string, name: string): Promise<void> {
  await store.patch(registryRef(tesseraDb), name, { generation: crypto.randomUUID() });
}

/**
 * The generation of the rows of `ref` (see DatasetRecord.generation): null when no registered dataset
 * lives there (rows written by other means) or its record predates generations.
 */
export async function datasetGeneration(
  store: Store,
  tesseraDb: string,
  ref: CollectionRef,
): Promise<string | null> {
  return (await datasetVersion(store, tesseraDb, ref)).generation;
}

/**
 * The generation of the rows of `ref` and the version of their content (generation and revision, see
 * DatasetRecord): both null when no registered dataset with a generation lives there, whose rows may then
 * change without anyone saying so.
 */
export async function datasetVersion(
  store: Store,
  tesseraDb: string,
  ref: CollectionRef,
): Promise<{ generation: string | null; content: string | null }> {
  return versionOf(await findDataset(store, tesseraDb, ref.collection), ref);
}

/** datasetVersion of a record already read (null: none) for the rows of `ref`. */
export function versionOf(
  rec: DatasetRecord | null,
  ref: CollectionRef,
): { generation: string | null; content: string | null } {
  const generation = rec && rec.database === ref.db ? rec.generation ?? null : null;
  return { generation, content: generation && `${generation}/${rec!.revision ?? ""}` };
}

/**
 * Gives the dataset of `ref` a new revision: what a write of values into its rows does once it has
 * written (or failed halfway), so that what was read of the rows before is read again. Nothing when no
 * registered dataset lives there.
 */
export async function touchDataset(store: Store, tesseraDb: string, ref: CollectionRef): Promise<void> {
  const rec = await findDataset(store, tesseraDb, ref.collection);
  if (rec && rec.database === ref.db) {
    await store.patch(registryRef(tesseraDb), rec._id, { revision: crypto.randomUUID() });
  }
}
