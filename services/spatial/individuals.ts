/**
 * A task's individuals: the collection's mapped fields streamed once into typed columns (core's
 * Individuals), and the first documents that dataset-columns profiles and the default mapping reads.
 */
import { IndividualsBuilder, type LoadedColumns } from "../../core/spatial/load.ts";
import {
  explicitKeys,
  type Mapping,
  MAPPING_KEYS,
  MAPPING_SAMPLE,
  resolveMapping,
} from "../../core/spatial/mapping.ts";
import { profileFields } from "../../core/ingest/field_profile.ts";
import type { CollectionRef, Doc, Store } from "../../store/store.ts";

/**
 * Documents read per batch: each batch is decoded and added on the event loop, so a batch of documents
 * with a hundred region ids each must stay well under the 50 ms any request may hold it.
 */
const BATCH = 1000;

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
 * Streams the collection once into typed columns (422 when the data cannot be audited), with the mapping
 * it read. Keys the request gave must name a field every document has; a key it left out reads the field
 * defaultMapping finds in the first MAPPING_SAMPLE documents, as dataset-columns shows it (those few are
 * read first, so the one pass over the collection carries only the mapped fields). A request's needs are
 * checked on the columns afterwards (requireNeeds), so one load serves audits and mitigations alike.
 */
export async function loadColumns(
  store: Store,
  ref: CollectionRef,
  requested: Partial<Mapping> | undefined,
): Promise<LoadedColumns> {
  const explicit = explicitKeys(requested);
  const head = explicit.length === MAPPING_KEYS.length ? [] : await firstDocuments(store, ref);
  const mapping = resolveMapping(requested, profileFields(head));
  const builder = new IndividualsBuilder(mapping, explicit);
  for await (const batch of store.stream(ref, { projection: builder.fields(), batchSize: BATCH })) {
    builder.add(batch);
  }
  return builder.columns();
}
