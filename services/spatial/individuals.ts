/**
 * A task's individuals: the collection's mapped fields streamed once into typed columns (core's
 * Individuals), and the first documents that dataset-columns profiles and the default mapping reads.
 */
import type { LoadedColumns } from "../../core/spatial/loaded_columns.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import { readColumns } from "../datasets/column_reads.ts";
import {
  explicitKeys,
  type Mapping,
  MAPPING_KEYS,
  MAPPING_SAMPLE,
  resolveMapping,
} from "../../core/spatial/mapping.ts";
import { profileFields } from "../../core/ingest/field_profile.ts";
import type { CollectionRef, Doc, Store } from "../../store/store.ts";

/** The first MAPPING_SAMPLE documents in collection order: the fixed sample the mapping is read from. */
export async function firstDocuments(store: Store, ref: CollectionRef): Promise<Doc[]> {
  const docs: Doc[] = [];
  for await (const batch of store.stream(ref, { batchSize: MAPPING_SAMPLE })) {
    docs.push(...batch);
    if (docs.length >= MAPPING_SAMPLE) break;
  }
  return docs.slice(0, MAPPING_SAMPLE);
}

/**
 * Reads the collection once into typed columns (422 when the data cannot be audited), with the mapping
 * it read, in a worker where one can open the store (services/datasets/column_reads.ts). Keys the request gave must
 * name a field every document has; a key it left out reads the field defaultMapping finds in the first
 * MAPPING_SAMPLE documents, as dataset-columns shows it (those few are read here first, so the one pass
 * over the collection carries only the mapped fields). A request's needs are checked on the columns
 * afterwards (requireNeeds), so one read serves audits and mitigations alike.
 */
export async function loadColumns(
  deps: { store: Store; pool: WorkerPool },
  ref: CollectionRef,
  requested: Partial<Mapping> | undefined,
): Promise<LoadedColumns> {
  const explicit = explicitKeys(requested);
  const head = explicit.length === MAPPING_KEYS.length ? [] : await firstDocuments(deps.store, ref);
  const mapping = resolveMapping(requested, profileFields(head));
  return await readColumns(deps.pool, deps.store, {
    ref: { db: ref.db, collection: ref.collection },
    mapping,
    explicit,
  });
}
