/** The decisions area: the log's route bound to its handler. */
import { bindRoutes, newRouter } from "../http/router.ts";
import * as routes from "./decisions.routes.ts";
import * as handlers from "./decisions.handlers.ts";

export function decisionRoutes() {
  return bindRoutes(newRouter(), routes, handlers, ["list"]);
}
