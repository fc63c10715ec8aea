/**
 * What annotation works on and maps to: `GET /dataset` (the catalogued datasets, each with its
 * distributions in the DCAT sense: the collections it was imported into) and `GET /model` (the data
 * models of the catalogue folder and MODELS_DIR).
 */
import { newRouter } from "../http/router.ts";
import { z } from "@hono/zod-openapi";
import { json } from "../http/schemas.ts";
import { annotationRoute as route, notFound } from "./openapi.ts";
import { type DatasetRecord, listDatasets } from "../../services/datasets/registry.ts";
import { listModels } from "../../services/annotation/data_models.ts";
import { DataModelOut, DatasetOut, PathName } from "./schemas.ts";
import { distributionId, requireDataset, requireModel } from "../../services/annotation/lookups.ts";

const missing = notFound("Unknown id");

/** A catalogue record as the API shows it: `_id` gone, each distribution with its id. */
const datasetOut = ({ _id, collection: _, ...d }: DatasetRecord): z.infer<typeof DatasetOut> => ({
  id: d.dataset_name,
  ...d,
  distributions: d.distributions.map((dist) => ({ id: distributionId(dist), ...dist })),
});

export function annotationCatalogueRoutes() {
  const app = newRouter();

  app.openapi(
    route({
      method: "get",
      path: "/dataset",
      summary: "List all datasets",
      responses: { 200: json(z.array(DatasetOut), "Every catalogued dataset, by name") },
    }),
    async (c) => {
      const { store, config } = c.var.deps;
      return c.json((await listDatasets(store, config.TESSERA_DB)).map(datasetOut), 200);
    },
  );

  app.openapi(
    route({
      method: "get",
      path: "/dataset/{dataset_name}",
      summary: "Get one dataset",
      request: { params: z.object({ dataset_name: PathName }) },
      responses: { 200: json(DatasetOut, "The dataset"), 404: missing },
    }),
    async (c) => c.json(datasetOut(await requireDataset(c, c.req.valid("param").dataset_name)), 200),
  );

  app.openapi(
    route({
      method: "get",
      path: "/model",
      summary: "List all models",
      responses: { 200: json(z.array(DataModelOut), "Every data model, by id, with its properties") },
    }),
    async (c) => c.json(await listModels(c.var.deps.config.MODELS_DIR), 200),
  );

  app.openapi(
    route({
      method: "get",
      path: "/model/{model_id}",
      summary: "Get one model",
      request: { params: z.object({ model_id: PathName }) },
      responses: { 200: json(DataModelOut, "The data model"), 404: missing },
    }),
    async (c) => c.json(await requireModel(c, c.req.valid("param").model_id), 200),
  );
  return app;
}
