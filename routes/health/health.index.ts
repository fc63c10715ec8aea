/** The health area: its route definitions bound to their handlers. */
import { newRouter } from "../http/router.ts";
import * as routes from "./health.routes.ts";
import * as handlers from "./health.handlers.ts";

export function healthRoutes() {
  return newRouter()
    .openapi(routes.healthz, handlers.healthz)
    .openapi(routes.readyz, handlers.readyz);
}
