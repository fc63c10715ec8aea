/** The mitigation area: its route definitions bound to their handlers, behind the task switch. */
import { bindRoutes, newRouter } from "../http/router.ts";
import { requireTasks } from "../tasks/tasks_enabled.ts";
import * as routes from "./mitigation.routes.ts";
import * as handlers from "./mitigation.handlers.ts";
import * as frontierRoutes from "./frontier.routes.ts";
import * as frontierHandlers from "./frontier.handlers.ts";

export function mitigationRoutes() {
  const app = newRouter();
  requireTasks(
    app,
    routes.writeback.path,
    routes.undoWriteback.path,
    routes.relabel.path,
    routes.threshold.path,
  );
  requireTasks(app, frontierRoutes.frontier.path);
  bindRoutes(app, routes, handlers, ["writeback", "undoWriteback", "relabel", "threshold"]);
  return bindRoutes(app, frontierRoutes, frontierHandlers, ["frontier"]);
}
