/** The spatial audit handlers: path and body in, the service's answer out. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./spatial.routes.ts";
import { toAuditSettings } from "./spatial.schemas.ts";
import { auditTask } from "../../services/spatial/audit.ts";
import { datasetColumns as columnsOf } from "../../services/spatial/dataset_columns.ts";

export const datasetColumns: AppRouteHandler<typeof routes.datasetColumns> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  return c.json(await columnsOf(c.var.deps, data_collection_name), 200);
};

export const audit: AppRouteHandler<typeof routes.audit> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  const settings = toAuditSettings(c.req.valid("json"));
  return c.json(await auditTask(c.var.deps, { collectionName: data_collection_name, ...settings }), 200);
};
