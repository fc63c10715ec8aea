/**
 * The toolkit's stateless area. Its bodies are read by its handlers, not by zod-openapi's validator (a
 * worker parses them: services/spatial_bias/read_body.ts), so each route is bound without its body and
 * registered for /openapi.json as defined, body and all.
 */
import type { RouteConfig } from "@hono/zod-openapi";
import { newRouter } from "../http/router.ts";
import type { Context } from "hono";
import type { AppEnv } from "../http/env.ts";
import { createMiddleware } from "hono/factory";
import { allows } from "../../core/auth/roles.ts";
import { roleForbidden } from "../auth/require_role.ts";
import * as routes from "./spatial_bias.routes.ts";
import * as handlers from "./spatial_bias.handlers.ts";

/** keep=true imports a dataset: the steward's decision (403 for a reviewer, as requireRole answers). */
const keepNeedsSteward = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.query("keep") === "true" && !allows(c.var.principal.role, "steward")) {
    return roleForbidden(c, "steward");
  }
  await next();
});

export function spatialBiasRoutes() {
  const app = newRouter();
  const bind = (route: RouteConfig, handler: (c: Context<AppEnv>) => Promise<Response>) => {
    const { body: _body, ...request } = route.request ?? {};
    const middleware = [route.middleware ?? []].flat().concat(keepNeedsSteward);
    app.openapi({ ...route, request, middleware, hide: true }, handler as never);
    const { middleware: _m, ...documented } = route;
    app.openAPIRegistry.registerPath(documented);
  };
  bind(routes.audit, handlers.audit);
  bind(routes.relabel, handlers.relabel);
  bind(routes.threshold, handlers.threshold);
  return app;
}
