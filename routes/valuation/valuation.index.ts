/** The data valuation area (spec 2): its route definitions bound to their handlers. */
import { bindRoutes, newRouter } from "../http/router.ts";
import * as routes from "./valuation.routes.ts";
import * as handlers from "./valuation.handlers.ts";

export function valuationRoutes() {
  return bindRoutes(newRouter(), routes, handlers, ["correlations", "featureImportance"]);
}
