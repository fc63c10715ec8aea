/** The tasks area: its route definitions bound to their handlers, behind the TASKS_ENABLED guard. */
import { bindRoutes, newRouter } from "../http/router.ts";
import { tasksEnabled } from "./tasks_enabled.ts";
import * as routes from "./tasks.routes.ts";
import * as handlers from "./tasks.handlers.ts";

export function taskRoutes() {
  const app = newRouter();
  // every /api/tasks route is in this group, registered after this line
  app.use("/api/tasks/*", tasksEnabled);
  return bindRoutes(app, routes, handlers, ["list", "create", "get", "patch", "remove"]);
}
