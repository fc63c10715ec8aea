/** The frontier handler: path and body in, the service's points out. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./frontier.routes.ts";
import { toFrontierSettings } from "./frontier.schemas.ts";
import { relabelFrontier } from "../../services/mitigation/frontier.ts";

export const frontier: AppRouteHandler<typeof routes.frontier> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  const body = c.req.valid("json");
  const target = { collectionName: data_collection_name, requestedBy: c.var.principal.sub, request: body };
  return c.json(await relabelFrontier(c.var.deps, { ...target, ...toFrontierSettings(body) }), 200);
};
