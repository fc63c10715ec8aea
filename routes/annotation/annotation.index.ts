/** The annotation area (spec 1): its route definitions bound to their handlers. */
import { bindRoutes, newRouter } from "../http/router.ts";
import * as routes from "./annotation.routes.ts";
import * as handlers from "./annotation.handlers.ts";

export function annotationRoutes() {
  return bindRoutes(newRouter(), routes, handlers, [
    "listDatasets",
    "getDataset",
    "listModels",
    "getModel",
    "listProcedures",
    "runAnnotation",
    "listAnnotations",
    "saveConfiguration",
    "getConfiguration",
    "saveModelInfo",
    "listModelInfo",
    "saveSchema",
    "listSchemas",
  ]);
}
