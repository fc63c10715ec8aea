/**
 * The routes of spec 1: the registered datasets and the data models to annotate against, the annotation
 * functions and their runs, and the per-dataset configuration, data-model info and schema. Every route
 * needs a bearer token.
 */
import { z } from "@hono/zod-openapi";
import { securedRoute } from "../http/router.ts";
import { detailResponse, errorResponses, json, jsonBody } from "../http/schemas.ts";
import {
  AnnotateItem,
  AnnotationRecord,
  ConfigurationItem,
  ConfigurationRecord,
  DataModelOut,
  DatasetOut,
  ModelInfo,
  ModelInfoRecord,
  PathName,
  ProcedureOut,
  Replaced,
  Schema,
  SchemaRecord,
} from "./annotation.schemas.ts";

const { 401: unauthorized, 403: forbidden, 422: invalid } = errorResponses;

/**
 * A secured route of spec 1: it answers 401 as every route does, 422 only when it takes a path
 * parameter, a query or a body (the spec declares none for GET /procedures, /model and /dataset, which
 * have nothing to validate), and 404 where the route says so.
 */
const route = <R extends Parameters<typeof securedRoute>[0]>(r: R) => {
  const validated = Boolean(r.request?.params || r.request?.query || r.request?.body);
  return securedRoute({
    ...r,
    tags: ["annotation"],
    responses: { ...r.responses, 401: unauthorized, 403: forbidden, ...(validated && { 422: invalid }) },
  });
};

/** The name in braces that ends a path (`/model/{model_id}` → `model_id`). */
type PathKey<P extends string> = P extends `${string}{${infer K}}` ? K : never;

/**
 * A GET of what is stored under the one name its path ends with (`/model/{model_id}`): `found`, or
 * `unknown` (a 404) when there is none.
 */
const getByName = <P extends `${string}}`, F extends ReturnType<typeof json>>(r: {
  path: P;
  summary: string;
  description?: string;
  found: F;
  unknown: ReturnType<typeof detailResponse>;
}) => {
  const key = r.path.slice(r.path.lastIndexOf("{") + 1, -1) as PathKey<P>;
  return route({
    role: "viewer",
    method: "get",
    path: r.path,
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    request: { params: z.object({ [key]: PathName } as Record<PathKey<P>, typeof PathName>) },
    responses: { 200: r.found, 404: r.unknown },
  });
};

const unknownId = detailResponse("Unknown id");
const unknownRun = detailResponse(
  "Unknown dataset or record; or a data model, distribution or column the body names (the item names the field)",
);
const unknownRecord = detailResponse(
  "Unknown dataset, or nothing stored for it; or a distribution or data model the body names (the item names " +
    "the field)",
);

// What annotation works on and maps to: the registered datasets, each with its distributions in the
// DCAT sense (the collections it was imported into), and the data models of the catalog.

export const listDatasets = route({
  role: "viewer",
  method: "get",
  path: "/dataset",
  summary: "List all datasets",
  responses: { 200: json(z.array(DatasetOut), "Every registered dataset, by name") },
});

export const getDataset = getByName({
  path: "/dataset/{dataset_name}",
  summary: "Get one dataset",
  found: json(DatasetOut, "The dataset"),
  unknown: unknownId,
});

export const listModels = route({
  role: "viewer",
  method: "get",
  path: "/model",
  summary: "List all models",
  responses: { 200: json(z.array(DataModelOut), "Every data model, by id, with its properties") },
});

export const getModel = getByName({
  path: "/model/{model_id}",
  summary: "Get one model",
  found: json(DataModelOut, "The data model"),
  unknown: unknownId,
});

// Running annotation functions.

export const listProcedures = route({
  role: "viewer",
  method: "get",
  path: "/procedures",
  summary: "List procedures",
  responses: { 200: json(z.array(ProcedureOut), "Every annotation function with its parameters") },
});

export const runAnnotation = route({
  role: "reviewer",
  method: "post",
  path: "/annotations",
  summary: "Execute an annotation",
  description: "Runs `annotation_function` on the dataset's rows (up to the first 100,000 unless " +
    "`sample_id` names a sample), or on inline `data`/`items`, with `params` merged over the dataset's " +
    "configuration; stores the result under `identifier` (replacing one stored there: `replaced`).",
  request: jsonBody(AnnotateItem),
  responses: {
    200: json(AnnotationRecord.extend(Replaced), "The stored annotation"),
    404: unknownRun,
    409: detailResponse(
      "The dataset's configuration does not enable `annotation_function` (the item names it)",
    ),
  },
});

export const listAnnotations = getByName({
  path: "/annotations/{dataset_id}",
  summary: "Get the annotations of a dataset",
  description: "Every stored annotation of the dataset, by identifier; 404 when the dataset is " +
    "neither registered nor annotated.",
  found: json(z.array(AnnotationRecord), "The stored annotations"),
  unknown: unknownRun,
});

// Per-dataset records: a POST replaces what it finds, never duplicates; a GET of something never set is
// a 404. The dataset must be registered.

export const saveConfiguration = route({
  role: "reviewer",
  method: "post",
  path: "/configuration",
  summary: "Save a configuration",
  request: jsonBody(ConfigurationItem),
  responses: {
    200: json(ConfigurationRecord.extend(Replaced), "The stored configuration"),
    404: unknownRecord,
  },
});

export const getConfiguration = getByName({
  path: "/configuration/{dataset_id}",
  summary: "Get the configuration of a dataset",
  found: json(ConfigurationRecord, "The configuration"),
  unknown: unknownRecord,
});

export const saveModelInfo = route({
  role: "reviewer",
  method: "post",
  path: "/data_model_info",
  summary: "Set data-model info",
  description: "Maps a distribution of a dataset to a data model (GET /model) and, optionally, a concept.",
  request: jsonBody(ModelInfo),
  responses: {
    200: json(ModelInfoRecord.extend(Replaced), "The stored data-model info"),
    404: unknownRecord,
  },
});

export const listModelInfo = getByName({
  path: "/data_model_info/{dataset_name}",
  summary: "Get the data-model info of a dataset",
  description: "One record per distribution that has one, by distribution id.",
  found: json(z.array(ModelInfoRecord), "The data-model info of each distribution"),
  unknown: unknownRecord,
});

export const saveSchema = route({
  role: "reviewer",
  method: "post",
  path: "/schema",
  summary: "Set the schema of a dataset",
  description: "Stores the field descriptors of one distribution, or of the whole dataset when " +
    "distribution_id is null.",
  request: jsonBody(Schema),
  responses: { 200: json(SchemaRecord.extend(Replaced), "The stored schema"), 404: unknownRecord },
});

export const listSchemas = getByName({
  path: "/schema/{dataset_name}",
  summary: "Get the schema of a dataset",
  description:
    "One record per distribution with a schema; the dataset-wide one (distribution_id null) first.",
  found: json(z.array(SchemaRecord), "The schemas"),
  unknown: unknownRecord,
});
