/**
 * The annotation service of spec 1: datasets and data models to annotate against, annotation runs, and
 * the per-dataset configuration, data-model info and schema. One group for app.ts to mount.
 */
import { newRouter } from "../http/router.ts";
import { annotationCatalogueRoutes } from "./listings.ts";
import { annotationRunRoutes } from "./annotations.ts";
import { annotationRecordRoutes } from "./records.ts";

export function annotationRoutes() {
  const app = newRouter();
  for (const group of [annotationCatalogueRoutes(), annotationRunRoutes(), annotationRecordRoutes()]) {
    app.route("/", group);
  }
  return app;
}
