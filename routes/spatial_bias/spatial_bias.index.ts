/**
 * The toolkit's stateless area. Its bodies are read by its handlers, not by zod-openapi's validator (a
 * worker parses them: services/spatial_bias/read_body.ts), so each route is bound without its body and
 * registered for /openapi.json as defined, body and all.
 */
import type { RouteConfig } from "@hono/zod-openapi";
import { newRouter } from "../http/router.ts";
import type { Context } from "hono";
import type { AppEnv } from "../http/env.ts";
import * as routes from "./spatial_bias.routes.ts";
import * as handlers from "./spatial_bias.handlers.ts";

export function spatialBiasRoutes() {
  const app = newRouter();
  const bind = (route: RouteConfig, handler: (c: Context<AppEnv>) => Promise<Response>) => {
    const { body: _body, ...request } = route.request ?? {};
    app.openapi({ ...route, request, hide: true }, handler as never);
    const { middleware: _m, ...documented } = route;
    app.openAPIRegistry.registerPath(documented);
  };
  bind(routes.audit, handlers.audit);
  bind(routes.relabel, handlers.relabel);
  bind(routes.threshold, handlers.threshold);
  return app;
}
