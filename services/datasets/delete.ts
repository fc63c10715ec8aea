/**
 * Deleting a dataset: its collection's documents, then its registry record. The name's import journal
 * head is taken for the time it runs (as an import takes it), so a delete never races an import: a
 * dataset under import is a 409, and a dead import of the name is rolled back first. Tessera's own
 * database is refused. Documents go before the record, so a delete cut off halfway is finished by the
 * next one (the record is still there to find); a dataset neither registered in this database nor holding
 * documents is a NotFoundError. The dataset's annotation records, tasks and runs are left as they are.
 */
import type { Config } from "../../config.ts";
import type { CollectionRef, Store } from "../../store/store.ts";
import { NotFoundError } from "../../core/errors.ts";
import { checkImportTarget } from "../../core/ingest/import_target.ts";
import { ImportJournal } from "./import_journal.ts";
import { findDataset, registryRef } from "./registry.ts";
import { DEFAULT_IMPORT_LEASE_MS } from "./import.ts";

export interface DeleteDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB"> & Partial<Pick<Config, "IMPORT_LEASE_SECONDS">>;
}

export interface DeleteInput {
  target: CollectionRef;
  /** Where the caller names the database and the collection, for a refusal's `loc`. */
  loc?: { db: (string | number)[]; collection: (string | number)[] };
}

export interface DeleteResult {
  /** The documents the collection held. */
  documents: number;
  /** Whether a registry record was removed. */
  registered: boolean;
}

/** Deletes the dataset `target` names: its documents and its registry record. */
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
  try {
    const record = await findDataset(store, config.TESSERA_DB, target.collection);
    const ours = record !== null && record.database === target.db;
    const documents = await store.count(target);
    if (!ours && documents === 0) {
      const elsewhere = record ? ` (dataset '${target.collection}' is in database '${record.database}')` : "";
      throw new NotFoundError(`no dataset '${target.collection}' in database '${target.db}'${elsewhere}`);
    }
    await store.dropCollection(target);
    if (ours) await store.delete(registryRef(config.TESSERA_DB), target.collection);
    return { documents, registered: ours };
  } finally {
    await journal.remove();
  }
}
