/**
 * The TASKS_ENABLED guard of every route that reads task documents (the tasks area, the spatial audit,
 * mitigation): 503 before the route validates anything.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/env.ts";
import { assertTasksEnabled } from "../../services/tasks/task_documents.ts";

/** 503 when the document database is switched off, before a route validates anything. */
export const tasksEnabled = createMiddleware<AppEnv>(async (c, next) => {
  assertTasksEnabled(c.var.deps.config);
  await next();
});

/**
 * Mounts tasksEnabled on a group's own route paths (OpenAPI `{param}` form), registered before the group's
 * routes: the guard then precedes each of them whatever order app.ts mounts the groups in.
 */
export function requireTasks(app: OpenAPIHono<AppEnv>, ...paths: string[]): void {
  for (const path of paths) app.use(path.replace(/\{(\w+)\}/g, ":$1"), tasksEnabled);
}
