/** The handlers of spec 1: each reads its validated input, calls its use case and answers with the result. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./annotation.routes.ts";
import { type DatasetRecord, listDatasets as registeredDatasets } from "../../services/datasets/registry.ts";
import { listModels as catalogModels } from "../../services/annotation/data_models.ts";
import { distributionId, requireDataset, requireModel } from "../../services/annotation/lookups.ts";
import * as runs from "../../services/annotation/runs.ts";
import * as records from "../../services/annotation/dataset_records.ts";

/** A registry record as the API shows it: `_id` and `collection` gone, each distribution with its id. */
const datasetOut = ({ _id, collection: _, ...d }: DatasetRecord) => ({
  id: d.dataset_name,
  ...d,
  distributions: d.distributions.map((dist) => ({ id: distributionId(dist), ...dist })),
});

export const listDatasets: AppRouteHandler<typeof routes.listDatasets> = async (c) => {
  const { store, config } = c.var.deps;
  return c.json((await registeredDatasets(store, config.TESSERA_DB)).map(datasetOut), 200);
};

export const getDataset: AppRouteHandler<typeof routes.getDataset> = async (c) =>
  c.json(datasetOut(await requireDataset(c.var.deps, c.req.valid("param").dataset_name)), 200);

export const listModels: AppRouteHandler<typeof routes.listModels> = async (c) =>
  c.json(await catalogModels(c.var.deps.config.MODELS_DIR), 200);

export const getModel: AppRouteHandler<typeof routes.getModel> = async (c) =>
  c.json(await requireModel(c.var.deps, c.req.valid("param").model_id), 200);

export const listProcedures: AppRouteHandler<typeof routes.listProcedures> = (c) =>
  c.json(runs.listProcedures(), 200);

export const runAnnotation: AppRouteHandler<typeof routes.runAnnotation> = async (c) => {
  const item = c.req.valid("json");
  const saved = await runs.runAnnotation(c.var.deps, {
    datasetId: item.dataset_id,
    identifier: item.identifier,
    functionName: item.annotation_function,
    sampleId: item.sample_id,
    data: item.data,
    items: item.items,
    params: item.params,
  });
  return c.json(saved, 200);
};

export const listAnnotations: AppRouteHandler<typeof routes.listAnnotations> = async (c) =>
  c.json(await runs.listAnnotations(c.var.deps, c.req.valid("param").dataset_id), 200);

export const saveConfiguration: AppRouteHandler<typeof routes.saveConfiguration> = async (c) => {
  const { dataset_id, methods } = c.req.valid("json");
  return c.json(await records.saveConfiguration(c.var.deps, { datasetId: dataset_id, methods }), 200);
};

export const getConfiguration: AppRouteHandler<typeof routes.getConfiguration> = async (c) =>
  c.json(await records.getConfiguration(c.var.deps, c.req.valid("param").dataset_id), 200);

export const saveModelInfo: AppRouteHandler<typeof routes.saveModelInfo> = async (c) => {
  const info = c.req.valid("json");
  const saved = await records.saveModelInfo(c.var.deps, {
    datasetId: info.dataset_id,
    distributionId: info.distribution_id,
    dataModelId: info.data_model_id,
    conceptName: info.concept_name,
  });
  return c.json(saved, 200);
};

export const listModelInfo: AppRouteHandler<typeof routes.listModelInfo> = async (c) =>
  c.json(await records.listModelInfo(c.var.deps, c.req.valid("param").dataset_name), 200);

export const saveSchema: AppRouteHandler<typeof routes.saveSchema> = async (c) => {
  const schema = c.req.valid("json");
  const saved = await records.saveSchema(c.var.deps, {
    datasetId: schema.dataset_id,
    distributionId: schema.distribution_id,
    fields: schema.fields,
  });
  return c.json(saved, 200);
};

export const listSchemas: AppRouteHandler<typeof routes.listSchemas> = async (c) =>
  c.json(await records.listSchemas(c.var.deps, c.req.valid("param").dataset_name), 200);
