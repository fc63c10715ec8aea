/** The health area: its route definitions bound to their handlers. */
import { bindRoutes, newRouter } from "../http/router.ts";
import * as routes from "./health.routes.ts";
import * as handlers from "./health.handlers.ts";

export function healthRoutes() {
  return bindRoutes(newRouter(), routes, handlers, ["healthz", "readyz"]);
}
