/**
 * Where spec 1's records are kept: one collection of Tessera's database per kind (annotations,
 * configurations, data-model info, schemas), each record under an id made of its dataset and key.
 */
import { JsonRecords } from "./json_records.ts";
import type { AnnotationDeps } from "./lookups.ts";

/** Collections of TESSERA_DB holding the records of spec 1. */
export const COLLECTIONS = {
  annotations: "annotations",
  configuration: "annotation_configurations",
  dataModelInfo: "data_model_info",
  schema: "dataset_schemas",
} as const;

export type RecordKind = keyof typeof COLLECTIONS;

/** When a record was first stored and last replaced (ISO 8601). */
export interface Stamped {
  created_at: string;
  updated_at: string;
}

/** The record store of one kind. */
export const records = <R extends object>({ store, config }: AnnotationDeps, kind: RecordKind) =>
  new JsonRecords<R>(store, { db: config.TESSERA_DB, collection: COLLECTIONS[kind] });

/** A store id from its parts (each URI-encoded, so `/` only ever separates them). */
export const recordId = (...parts: (string | null)[]) =>
  parts.map((p) => encodeURIComponent(p ?? "")).join("/");

/**
 * Creates or replaces a dataset's record of one kind under the id made of `idParts`, keeping the first
 * `created_at`; says whether it replaced one.
 */
export async function save<R extends { dataset_id: string } & Stamped>(
  deps: AnnotationDeps,
  kind: RecordKind,
  idParts: (string | null)[],
  fields: Omit<R, keyof Stamped>,
): Promise<R & { replaced: boolean }> {
  const repo = records<R>(deps, kind);
  const id = recordId(...idParts);
  const now = new Date().toISOString();
  const prev = await repo.get(id);
  const record = { ...fields, created_at: prev?.created_at ?? now, updated_at: now } as R;
  await repo.put(id, { dataset_id: record.dataset_id }, record);
  return { ...record, replaced: prev !== null };
}
