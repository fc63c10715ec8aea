/** The spatial audit area: its route definitions bound to their handlers, behind the task switch. */
import { bindRoutes, newRouter } from "../http/router.ts";
import { requireTasks } from "../tasks/tasks_enabled.ts";
import * as routes from "./spatial.routes.ts";
import * as handlers from "./spatial.handlers.ts";

export function spatialRoutes() {
  const app = newRouter();
  requireTasks(
    app,
    routes.datasetColumns.path,
    routes.audit.path,
    routes.runs.path,
    routes.run.path,
    routes.runReport.path,
    routes.runMap.path,
    routes.cancelRun.path,
  );
  const order = ["datasetColumns", "audit", "runs", "run", "runReport", "runMap", "cancelRun"] as const;
  return bindRoutes(app, routes, handlers, order);
}
