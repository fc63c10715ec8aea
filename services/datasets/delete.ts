/**
 * Deleting a dataset: its collection's documents, then its registry record. The name's import journal
 * head is taken for the time it runs (as an import takes it), so a delete never races an import: a
 * dataset under import is a 409, and a dead import of the name is rolled back first. Tessera's own
 * database is refused; a dataset neither registered in this database nor holding documents is a
 * NotFoundError. The dataset's annotation records, tasks and runs are left as they are.
 *
 * Before anything is dropped, the head moves to `deleting` and queues the delete's log entry in the same
 * compare-and-set (services/decisions/outbox.ts): from there the delete is finished, by this process or,
 * if it dies, by the recovery that meets its head (import_recovery.ts), and logged exactly once.
 */
import type { Config } from "../../config.ts";
import type { CollectionRef, Store } from "../../store/store.ts";
import { NotFoundError } from "../../core/errors.ts";
import { checkImportTarget } from "../../core/ingest/import_target.ts";
import type { Decider } from "../decisions/entry.ts";
import { ImportJournal } from "./import_journal.ts";
import { finishDelete } from "./import_recovery.ts";
import { findDataset } from "./registry.ts";
import { DEFAULT_IMPORT_LEASE_MS } from "./import.ts";
import { deleteEntry } from "./dataset_decisions.ts";

export interface DeleteDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB"> & Partial<Pick<Config, "IMPORT_LEASE_SECONDS">>;
}

export interface DeleteInput {
  target: CollectionRef;
  /** Who decided the delete (the request's user, or the console's), for the log. */
  who: Decider;
  /** Where the caller names the database and the collection, for a refusal's `loc`. */
  loc?: { db: (string | number)[]; collection: (string | number)[] };
}

export interface DeleteResult {
  /** The documents the collection held. */
  documents: number;
  /** Whether a registry record was removed. */
  registered: boolean;
}

/** Deletes the dataset `target` names: its documents and its registry record; logged with its decision. */
export async function deleteDataset(deps: DeleteDeps, input: DeleteInput): Promise<DeleteResult> {
  const { store, config } = deps;
  const { target } = input;
  checkImportTarget(
    target,
    config.TESSERA_DB,
    input.loc ?? { db: ["target", "db"], collection: ["target", "collection"] },
  );
  const leaseMs = config.IMPORT_LEASE_SECONDS ? config.IMPORT_LEASE_SECONDS * 1000 : DEFAULT_IMPORT_LEASE_MS;
  // a live import of the name is a 409 here; a dead one is rolled back before the name is ours
  const journal = await ImportJournal.begin(store, config.TESSERA_DB, target, "replace", leaseMs);
  let result: DeleteResult;
  try {
    const record = await findDataset(store, config.TESSERA_DB, target.collection);
    const ours = record !== null && record.database === target.db;
    const documents = await store.count(target);
    if (!ours && documents === 0) {
      const elsewhere = record ? ` (dataset '${target.collection}' is in database '${record.database}')` : "";
      throw new NotFoundError(`no dataset '${target.collection}' in database '${target.db}'${elsewhere}`);
    }
    await journal.decideDelete(deleteEntry(target, input.who, documents, ours, ours ? record : null));
    result = { documents, registered: ours };
  } catch (e) {
    await journal.remove(); // nothing decided: the name is free again
    throw e;
  }
  try {
    await finishDelete(store, config.TESSERA_DB, journal.head);
  } catch (e) {
    journal.close(); // decided: its lease runs out and a recovery finishes the delete
    throw e;
  }
  await journal.remove().catch(() => {}); // left behind, a recovery finishes it once more: no harm
  return result;
}
