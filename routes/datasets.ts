import { newRouter } from "./env.ts";
export function datasetImportRoutes() {
  return newRouter();
}
