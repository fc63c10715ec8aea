/** The mitigation handlers: path and body in, the service's answer out; the caller is noted on the task. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./mitigation.routes.ts";
import { toRelabelSettings, toThresholdSettings } from "./mitigation.schemas.ts";
import { mitigateByRelabel, mitigateByThreshold } from "../../services/mitigation/mitigate.ts";
import { writeBack } from "../../services/mitigation/writeback.ts";

export const writeback: AppRouteHandler<typeof routes.writeback> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  const { new_field, preds } = c.req.valid("json");
  const answer = await writeBack(c.var.deps, {
    collectionName: data_collection_name,
    newField: new_field,
    preds,
    requestedBy: c.var.principal.sub,
  });
  return c.json(answer, 200);
};

export const relabel: AppRouteHandler<typeof routes.relabel> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  const settings = toRelabelSettings(c.req.valid("json"));
  const target = { collectionName: data_collection_name, requestedBy: c.var.principal.sub };
  return c.json(await mitigateByRelabel(c.var.deps, { ...target, ...settings }), 200);
};

export const threshold: AppRouteHandler<typeof routes.threshold> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  const settings = toThresholdSettings(c.req.valid("json"));
  const target = { collectionName: data_collection_name, requestedBy: c.var.principal.sub };
  return c.json(await mitigateByThreshold(c.var.deps, { ...target, ...settings }), 200);
};
