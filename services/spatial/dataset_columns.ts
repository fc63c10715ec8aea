/** `dataset-columns`: what a task's collection offers for the field mapping, and what an audit would read. */
import type { Config } from "../../config.ts";
import { type FieldProfile, profileFields } from "../../core/ingest/field_profile.ts";
import { defaultMapping, type MappingKey } from "../../core/spatial/mapping.ts";
import type { Store } from "../../store/store.ts";
import { firstDocuments } from "./individuals.ts";
import { taskCollection } from "./task_collection.ts";

/** The columns of the sample and the field each mapping key defaults to. */
export interface DatasetColumns {
  data_collection_name: string;
  database_name: string;
  sampled: number;
  columns: FieldProfile[];
  mapping_defaults: Record<MappingKey, string | null>;
}

/** Profiles the first documents of a task's collection, so a reviewer can choose the mapping. */
export async function datasetColumns(
  deps: { store: Store; config: Config },
  collectionName: string,
): Promise<DatasetColumns> {
  const ref = await taskCollection(deps, collectionName);
  const docs = await firstDocuments(deps.store, ref);
  const columns = profileFields(docs);
  return {
    data_collection_name: collectionName,
    database_name: ref.db,
    sampled: docs.length,
    columns,
    mapping_defaults: defaultMapping(columns),
  };
}
