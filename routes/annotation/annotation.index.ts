/** The annotation area (spec 1): its route definitions bound to their handlers. */
import { newRouter } from "../http/router.ts";
import * as routes from "./annotation.routes.ts";
import * as handlers from "./annotation.handlers.ts";

export function annotationRoutes() {
  return newRouter()
    .openapi(routes.listDatasets, handlers.listDatasets)
    .openapi(routes.getDataset, handlers.getDataset)
    .openapi(routes.listModels, handlers.listModels)
    .openapi(routes.getModel, handlers.getModel)
    .openapi(routes.listProcedures, handlers.listProcedures)
    .openapi(routes.runAnnotation, handlers.runAnnotation)
    .openapi(routes.listAnnotations, handlers.listAnnotations)
    .openapi(routes.saveConfiguration, handlers.saveConfiguration)
    .openapi(routes.getConfiguration, handlers.getConfiguration)
    .openapi(routes.saveModelInfo, handlers.saveModelInfo)
    .openapi(routes.listModelInfo, handlers.listModelInfo)
    .openapi(routes.saveSchema, handlers.saveSchema)
    .openapi(routes.listSchemas, handlers.listSchemas);
}
