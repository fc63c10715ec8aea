/** The tasks area: its route definitions bound to their handlers, behind the TASKS_ENABLED guard. */
import { newRouter } from "../http/router.ts";
import { tasksEnabled } from "./tasks_enabled.ts";
import * as routes from "./tasks.routes.ts";
import * as handlers from "./tasks.handlers.ts";

export function taskRoutes() {
  const app = newRouter();
  // every /api/tasks route is in this group, registered after this line
  app.use("/api/tasks/*", tasksEnabled);
  return app
    .openapi(routes.list, handlers.list)
    .openapi(routes.create, handlers.create)
    .openapi(routes.get, handlers.get)
    .openapi(routes.patch, handlers.patch)
    .openapi(routes.remove, handlers.remove);
}
