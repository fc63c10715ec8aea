/** The datasets area: its route definitions bound to their handlers. */
import { newRouter } from "../http/router.ts";
import * as routes from "./datasets.routes.ts";
import * as handlers from "./datasets.handlers.ts";

export function datasetRoutes() {
  return newRouter().openapi(routes.importDataset, handlers.importDataset);
}
