/** The decision log's handler: the query in, a page of entries out. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./decisions.routes.ts";
import { listDecisions } from "../../services/decisions/list.ts";

export const list: AppRouteHandler<typeof routes.list> = async (c) =>
  c.json(await listDecisions(c.var.deps, c.req.valid("query")), 200);
