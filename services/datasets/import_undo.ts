/**
 * An import that failed before committing, undone: its rows deleted, its name given back (or the dataset
 * given a new generation), its journal removed; and the failure to throw, naming a record the store refused.
 */
import {
  type CollectionRef,
  DocumentTooLargeError,
  DuplicateIdError,
  type Store,
} from "../../store/store.ts";
import { bumpGeneration, releaseDataset } from "./registry.ts";
import { type ImportMode } from "./import_log.ts";
import { ImportJournal } from "./import_journal.ts";
import { BadRequestError, ConflictError } from "../../core/errors.ts";

import { type Failed, WrittenIds } from "./import_batches.ts";

/**
 * An import that failed before committing: undo its rows, give back its name (a first import's
 * reservation) or give the dataset a new generation (a run may have read the rows while they were there),
 * remove its journal; the failure to throw. When the rows cannot be deleted (the store is down), the
 * journal stays: its lease runs out and a recovery rolls the import back.
 */
export async function abandon(
  store: Store,
  tesseraDb: string,
  target: CollectionRef,
  journal: ImportJournal,
  reserved: boolean,
  inserted: WrittenIds,
  failed: Failed[],
  cause: unknown,
  mode: ImportMode,
): Promise<Error> {
  journal.close();
  const { error, undone } = await undo(store, target, inserted, failed, cause as Error, mode === "replace");
  if (!journal.lost && undone) {
    try {
      if (reserved) await releaseDataset(store, tesseraDb, target.collection);
      else await bumpGeneration(store, tesseraDb, target.collection);
      await journal.remove();
    } catch { /* the journal stays; a recovery finishes the rollback */ }
  }
  return error;
}

/**
 * Deletes what a failed import wrote, and gives the failure to throw, naming the record a store refused.
 * Of a batch the store failed on, a typed refusal says how many leading documents it wrote; after an
 * unknown failure every id the journal logged for it is deleted (made here, or a record's own id that
 * did not exist before the batch: if it exists now, it is ours). `undone`: every row is gone.
 */
async function undo(
  store: Store,
  ref: CollectionRef,
  inserted: WrittenIds,
  failed: Failed[],
  cause: Error,
  replace = false,
): Promise<{ error: Error; undone: boolean }> {
  let error = cause;
  const partly: string[] = []; // of the failed batches
  for (const { batch, error: failure } of failed) {
    const refused = failure instanceof DuplicateIdError || failure instanceof DocumentTooLargeError
      ? failure
      : null;
    const written = refused?.written ?? 0;
    const logged = new Set(batch.logged);
    batch.docs.forEach((d, i) => {
      if (i < written || batch.fresh.has(d._id) || (!refused && logged.has(d._id))) partly.push(d._id);
    });
    if (refused && failure === cause) error = named(refused, batch.places[refused.index], replace);
  }
  try {
    for (const ids of inserted.chunks()) await store.deleteMany(ref, ids);
    await store.deleteMany(ref, partly);
    return { error, undone: true };
  } catch {
    error.message += ` (the ${inserted.length + partly.length} documents inserted before the failure could ` +
      "not be removed now; they are removed when the import is recovered, at the latest when Tessera next " +
      "starts)";
    return { error, undone: false };
  }
}

/** A store's refusal of one document, as the error of the upload, naming the record's place. */
function named(refused: DuplicateIdError | DocumentTooLargeError, place: string, replace: boolean): Error {
  if (refused instanceof DocumentTooLargeError) return new BadRequestError(`${place}: ${refused.message}`);
  const hint = replace ? " (a replacing upload keeps the old rows until the new ones are in)" : "";
  return new ConflictError(`${place}: ${refused.message}${hint}`);
}
