/**
 * Per-dataset records of spec 1: `/configuration` (the annotation methods), `/data_model_info` (dataset
 * and distribution → data model and concept) and `/schema` (field descriptors of a distribution, or of
 * the whole dataset when distribution_id is null). A POST replaces what it finds, never duplicates; a
 * GET of something never set is a 404. The dataset must be catalogued.
 */
import { newRouter } from "../http/router.ts";
import { z } from "@hono/zod-openapi";
import { json } from "../http/schemas.ts";
import { NotFoundError } from "../../core/errors.ts";
import { annotationRoute, jsonBody, notFound } from "./openapi.ts";
import {
  ConfigurationItem,
  ConfigurationRecord,
  ModelInfo,
  ModelInfoRecord,
  PathName,
  Replaced,
  Schema,
  SchemaRecord,
} from "./schemas.ts";
import {
  recordId,
  records,
  recordsOf,
  requireDataset,
  requireDistribution,
  requireModel,
  save,
} from "../../services/annotation/lookups.ts";

type ConfigurationRecord = z.infer<typeof ConfigurationRecord>;
type ModelInfoRecord = z.infer<typeof ModelInfoRecord>;
type SchemaRecord = z.infer<typeof SchemaRecord>;

const missing = notFound("Unknown dataset, or nothing stored for it");
const route = <R extends Parameters<typeof annotationRoute>[0]>(r: R) =>
  annotationRoute({ ...r, responses: { ...r.responses, 404: missing } });

export function annotationRecordRoutes() {
  const app = newRouter();

  app.openapi(
    route({
      method: "post",
      path: "/configuration",
      summary: "Save a configuration",
      request: jsonBody(ConfigurationItem),
      responses: { 200: json(ConfigurationRecord.extend(Replaced), "The stored configuration") },
    }),
    async (c) => {
      const { dataset_id, methods } = c.req.valid("json");
      await requireDataset(c, dataset_id);
      return c.json(
        await save<ConfigurationRecord>(c, "configuration", [dataset_id], { dataset_id, methods }),
        200,
      );
    },
  );

  app.openapi(
    route({
      method: "get",
      path: "/configuration/{dataset_id}",
      summary: "Get the configuration of a dataset",
      request: { params: z.object({ dataset_id: PathName }) },
      responses: { 200: json(ConfigurationRecord, "The configuration") },
    }),
    async (c) => {
      const { dataset_id } = c.req.valid("param");
      const found = await records<ConfigurationRecord>(c, "configuration").get(recordId(dataset_id));
      if (!found) throw new NotFoundError(`no configuration for dataset '${dataset_id}'`);
      return c.json(found, 200);
    },
  );

  app.openapi(
    route({
      method: "post",
      path: "/data_model_info",
      summary: "Set data-model info",
      description:
        "Maps a distribution of a dataset to a data model (GET /model) and, optionally, a concept.",
      request: jsonBody(ModelInfo),
      responses: { 200: json(ModelInfoRecord.extend(Replaced), "The stored data-model info") },
    }),
    async (c) => {
      const info = c.req.valid("json");
      const dataset = await requireDataset(c, info.dataset_id);
      requireDistribution(dataset, info.distribution_id, ["body", "distribution_id"]);
      await requireModel(c, info.data_model_id, ["body", "data_model_id"]);
      const id = [info.dataset_id, info.distribution_id];
      return c.json(await save<ModelInfoRecord>(c, "dataModelInfo", id, info), 200);
    },
  );

  app.openapi(
    route({
      method: "get",
      path: "/data_model_info/{dataset_name}",
      summary: "Get the data-model info of a dataset",
      description: "One record per distribution that has one, by distribution id.",
      request: { params: z.object({ dataset_name: PathName }) },
      responses: { 200: json(z.array(ModelInfoRecord), "The data-model info of each distribution") },
    }),
    async (c) => {
      const { dataset_name } = c.req.valid("param");
      return c.json(
        await recordsOf<ModelInfoRecord>(c, "dataModelInfo", dataset_name, "data-model info"),
        200,
      );
    },
  );

  app.openapi(
    route({
      method: "post",
      path: "/schema",
      summary: "Set the schema of a dataset",
      description: "Stores the field descriptors of one distribution, or of the whole dataset when " +
        "distribution_id is null.",
      request: jsonBody(Schema),
      responses: { 200: json(SchemaRecord.extend(Replaced), "The stored schema") },
    }),
    async (c) => {
      const schema = c.req.valid("json");
      const dataset = await requireDataset(c, schema.dataset_id);
      if (schema.distribution_id !== null) {
        requireDistribution(dataset, schema.distribution_id, ["body", "distribution_id"]);
      }
      const id = [schema.dataset_id, schema.distribution_id];
      return c.json(await save<SchemaRecord>(c, "schema", id, schema), 200);
    },
  );

  app.openapi(
    route({
      method: "get",
      path: "/schema/{dataset_name}",
      summary: "Get the schema of a dataset",
      description:
        "One record per distribution with a schema; the dataset-wide one (distribution_id null) first.",
      request: { params: z.object({ dataset_name: PathName }) },
      responses: { 200: json(z.array(SchemaRecord), "The schemas") },
    }),
    async (c) => {
      const { dataset_name } = c.req.valid("param");
      return c.json(await recordsOf<SchemaRecord>(c, "schema", dataset_name, "schema"), 200);
    },
  );
  return app;
}
