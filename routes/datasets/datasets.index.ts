/** The datasets area: its route definitions bound to their handlers. */
import { bindRoutes, newRouter } from "../http/router.ts";
import * as routes from "./datasets.routes.ts";
import * as handlers from "./datasets.handlers.ts";

export function datasetRoutes() {
  return bindRoutes(newRouter(), routes, handlers, ["importDataset", "exportDataset", "deleteDataset"]);
}
