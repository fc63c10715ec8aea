/** The task document handlers: the request's fields in, the service's documents out. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./tasks.routes.ts";
import * as tasks from "../../services/tasks/task_documents.ts";
import { deciderOf } from "../http/decider.ts";

export const list: AppRouteHandler<typeof routes.list> = async (c) => {
  const docs = await tasks.listTaskDocuments(c.var.deps, c.req.valid("query"));
  return c.json(docs, 200);
};

export const create: AppRouteHandler<typeof routes.create> = async (c) =>
  c.json(await tasks.createTaskDocument(c.var.deps, c.req.valid("json")), 201);

export const get: AppRouteHandler<typeof routes.get> = async (c) =>
  c.json(await tasks.getTaskDocument(c.var.deps, c.req.valid("param").collection_name), 200);

export const patch: AppRouteHandler<typeof routes.patch> = async (c) => {
  const { collection_name } = c.req.valid("param");
  const doc = await tasks.setTaskStatus(
    c.var.deps,
    collection_name,
    c.req.valid("json").status,
    deciderOf(c),
  );
  return c.json(doc, 200);
};

export const remove: AppRouteHandler<typeof routes.remove> = async (c) => {
  const { collection_name } = c.req.valid("param");
  await tasks.deleteTaskDocument(c.var.deps, collection_name);
  return c.json({ deleted: collection_name }, 200);
};
