/**
 * The per-dataset records of spec 1: the configuration (annotation methods), the data-model info
 * (distribution → data model and concept) and the schema (field descriptors of a distribution, or of
 * the whole dataset). Saving replaces, never duplicates; the dataset must be registered.
 */
import { NotFoundError } from "../../core/errors.ts";
import { type AnnotationDeps, requireDataset, requireDistribution, requireModel } from "./lookups.ts";
import { recordId, type RecordKind, records, save, type Stamped } from "./record_store.ts";

export interface ConfigurationRecord extends Stamped {
  dataset_id: string;
  methods: unknown;
}

export interface ModelInfoRecord extends Stamped {
  dataset_id: string;
  distribution_id: string;
  data_model_id: string;
  concept_name: string | null;
}

export interface SchemaRecord extends Stamped {
  dataset_id: string;
  distribution_id: string | null;
  fields: unknown[];
}

/** Stores a dataset's annotation methods (free JSON), which give POST /annotations its defaults. */
export async function saveConfiguration(
  deps: AnnotationDeps,
  input: { datasetId: string; methods: unknown },
) {
  const { datasetId: dataset_id, methods } = input;
  await requireDataset(deps, dataset_id);
  return await save<ConfigurationRecord>(deps, "configuration", [dataset_id], { dataset_id, methods });
}

/** The dataset's stored configuration, or null when none was saved (callers of a run read it too). */
export async function findConfiguration(
  deps: AnnotationDeps,
  datasetId: string,
): Promise<ConfigurationRecord | null> {
  return await records<ConfigurationRecord>(deps, "configuration").get(recordId(datasetId));
}

/** The dataset's configuration; NotFoundError when none was saved. */
export async function getConfiguration(deps: AnnotationDeps, datasetId: string) {
  const found = await findConfiguration(deps, datasetId);
  if (!found) throw new NotFoundError(`no configuration for dataset '${datasetId}'`);
  return found;
}

/** Maps a distribution of a registered dataset to a data model of the catalog (and a concept). */
export async function saveModelInfo(
  deps: AnnotationDeps,
  input: { datasetId: string; distributionId: string; dataModelId: string; conceptName: string | null },
) {
  const dataset = await requireDataset(deps, input.datasetId);
  requireDistribution(dataset, input.distributionId, ["body", "distribution_id"]);
  await requireModel(deps, input.dataModelId, ["body", "data_model_id"]);
  return await save<ModelInfoRecord>(deps, "dataModelInfo", [input.datasetId, input.distributionId], {
    dataset_id: input.datasetId,
    distribution_id: input.distributionId,
    data_model_id: input.dataModelId,
    concept_name: input.conceptName,
  });
}

/** The data-model info of each distribution that has one, by distribution id. */
export function listModelInfo(deps: AnnotationDeps, datasetId: string) {
  return recordsOf<ModelInfoRecord>(deps, "dataModelInfo", datasetId, "data-model info");
}

/** Stores the field descriptors of one distribution, or of the whole dataset (distributionId null). */
export async function saveSchema(
  deps: AnnotationDeps,
  input: { datasetId: string; distributionId: string | null; fields: unknown[] },
) {
  const dataset = await requireDataset(deps, input.datasetId);
  if (input.distributionId !== null) {
    requireDistribution(dataset, input.distributionId, ["body", "distribution_id"]);
  }
  return await save<SchemaRecord>(deps, "schema", [input.datasetId, input.distributionId], {
    dataset_id: input.datasetId,
    distribution_id: input.distributionId,
    fields: input.fields,
  });
}

/** The dataset's schemas, the dataset-wide one (distribution_id null) first. */
export function listSchemas(deps: AnnotationDeps, datasetId: string) {
  return recordsOf<SchemaRecord>(deps, "schema", datasetId, "schema");
}

/** A dataset's records of one kind, in id order; NotFoundError when it has none. */
async function recordsOf<R extends object>(
  deps: AnnotationDeps,
  kind: RecordKind,
  datasetId: string,
  what: string,
): Promise<R[]> {
  const found = await records<R>(deps, kind).list({ dataset_id: datasetId });
  if (!found.length) throw new NotFoundError(`no ${what} for dataset '${datasetId}'`);
  return found;
}
