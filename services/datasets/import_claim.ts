/**
 * The dataset name an import claims, once the journal holds it: its registry record, reserved when the
 * dataset is new.
 */
import { type CollectionRef, type Store } from "../../store/store.ts";
import { type DatasetRecord, findDataset, releaseDataset, reserveDataset } from "./registry.ts";
import { type ImportMode } from "./import_log.ts";
import { ConflictError } from "../../core/errors.ts";

/** The name's registry record before the import, and what the import found there. */
export interface Claim {
  existing: DatasetRecord | null;
  /** The import made the record (the dataset's first import). */
  reserved: boolean;
  /** The collection held documents when the import began (so a record's own `_id` may exist already). */
  occupied: boolean;
}

/**
 * With the name held by the journal: the dataset's registry record, after reserving the name when the
 * dataset is new. A name that lives in another database is a 409; so is any existing dataset (or a
 * collection holding documents) in mode create. A reservation left by an import that died before the
 * journal existed is released.
 */
export async function claimName(
  store: Store,
  tesseraDb: string,
  target: CollectionRef,
  mode: ImportMode,
): Promise<Claim> {
  let existing = await findDataset(store, tesseraDb, target.collection);
  if (existing && existing.database !== target.db) {
    throw new ConflictError(
      `a dataset named '${target.collection}' already exists in database '${existing.database}'`,
    );
  }
  if (existing?.importing) {
    // the journal holds the name, so no import is running: a reservation of a process that died
    await releaseDataset(store, tesseraDb, target.collection);
    existing = null;
  }
  const occupied = (await store.list(target, undefined, { limit: 1 })).length > 0;
  if (mode === "create" && (existing || occupied)) {
    const what = existing
      ? `a dataset named '${target.collection}' exists already in database '${target.db}' ` +
        `(${existing.rows} rows)`
      : `collection '${target.collection}' of database '${target.db}' holds documents already`;
    throw new ConflictError(`${what}: mode create makes new datasets only; use mode replace or append`);
  }
  if (existing) return { existing, reserved: false, occupied };
  if (!await reserveDataset(store, tesseraDb, target)) {
    throw new ConflictError(`the dataset name '${target.collection}' was taken meanwhile; try again`);
  }
  return { existing: null, reserved: true, occupied };
}
