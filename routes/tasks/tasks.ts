/**
 * Task configuration documents (spec 2 "Task documents"), keyed by `data_collection_name`.
 * Switched off by TASKS_ENABLED=false: every route then answers 503.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/env.ts";
import { newRouter, securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import { ConflictError, DisabledError, NotFoundError } from "../../core/errors.ts";
import { DuplicateIdError } from "../../store/store.ts";
import type { CollectionRef, Doc } from "../../store/store.ts";
import { CollectionName, DatabaseName } from "../datasets/datasets.ts";

const Timestamp = z.iso.datetime({ offset: true });

export const TaskDocument = z.object({
  pipeline_name: z.string().nullable().optional(),
  database_name: DatabaseName,
  data_collection_name: CollectionName,
  status: z.string().min(1).max(64),
  component: z.string().nullable().optional(),
  started_at: Timestamp.nullable().optional(),
  ended_at: Timestamp.nullable().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
}).openapi("TaskDocument");

const TaskCreate = TaskDocument.extend({ status: z.string().min(1).max(64).default("pending") }).strict();
const TaskPatch = z.object({ status: z.string().min(1).max(64) }).strict().openapi("TaskPatch");
const Params = z.object({ collection_name: CollectionName });

const tasksRef = (db: string): CollectionRef => ({ db, collection: "tasks" });
const strip = ({ _id, ...rest }: Doc) => rest;
const notFound = (name: string) => new NotFoundError(`no task document for collection '${name}'`);

/** 503 when the document database is switched off, before a route validates anything. */
export const tasksEnabled = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.var.deps.config.TASKS_ENABLED) {
    throw new DisabledError("task documents are disabled on this deployment (TASKS_ENABLED=false)");
  }
  await next();
});

/**
 * Mounts tasksEnabled on a group's own route paths (OpenAPI `{param}` form), registered before the group's
 * routes: the guard then precedes each of them whatever order app.ts mounts the groups in.
 */
export function requireTasks(app: OpenAPIHono<AppEnv>, ...paths: string[]): void {
  for (const path of paths) app.use(path.replace(/\{(\w+)\}/g, ":$1"), tasksEnabled);
}

const taskRoute = <R extends Parameters<typeof securedRoute>[0]>(r: R) =>
  securedRoute({ ...r, tags: ["tasks"], responses: { ...r.responses, ...errorResponses } });

export function taskRoutes() {
  const app = newRouter();
  // every /api/tasks route is in this group, registered after this line
  app.use("/api/tasks/*", tasksEnabled);

  app.openapi(
    taskRoute({
      method: "get",
      path: "/api/tasks/documents",
      summary: "List task configuration documents",
      request: { query: z.object({ status: z.string().optional(), component: z.string().optional() }) },
      responses: { 200: json(z.array(TaskDocument), "The matching documents") },
    }),
    async (c) => {
      const { status, component } = c.req.valid("query");
      const filter = {
        ...(status !== undefined && { status }),
        ...(component !== undefined && { component }),
      };
      const docs = await c.var.deps.store.list(tasksRef(c.var.deps.config.TESSERA_DB), filter);
      return c.json(docs.map(strip) as z.infer<typeof TaskDocument>[], 200);
    },
  );

  app.openapi(
    taskRoute({
      method: "post",
      path: "/api/tasks/documents",
      summary: "Create a task configuration document",
      request: { body: { content: { "application/json": { schema: TaskCreate } }, required: true } },
      responses: {
        201: json(TaskDocument, "The created document"),
        409: json(z.object({ detail: z.string() }), "It exists"),
      },
    }),
    async (c) => {
      const body = c.req.valid("json");
      const ref = tasksRef(c.var.deps.config.TESSERA_DB);
      const doc = { ended_at: null, ...body, started_at: body.started_at ?? new Date().toISOString() };
      try {
        // an insert, not a look then a write: of two concurrent creates one wins, the other is a 409
        await c.var.deps.store.insertMany(ref, [{ _id: body.data_collection_name, ...doc }]);
      } catch (e) {
        if (!(e instanceof DuplicateIdError)) throw e;
        throw new ConflictError(`a task document for '${body.data_collection_name}' exists already`);
      }
      return c.json(doc, 201);
    },
  );

  app.openapi(
    taskRoute({
      method: "get",
      path: "/api/tasks/document/{collection_name}",
      summary: "Get one task configuration document",
      request: { params: Params },
      responses: {
        200: json(TaskDocument, "The document"),
        404: json(z.object({ detail: z.string() }), "None"),
      },
    }),
    async (c) => {
      const { collection_name } = c.req.valid("param");
      const doc = await c.var.deps.store.get(tasksRef(c.var.deps.config.TESSERA_DB), collection_name);
      if (!doc) throw notFound(collection_name);
      return c.json(strip(doc) as z.infer<typeof TaskDocument>, 200);
    },
  );

  app.openapi(
    taskRoute({
      method: "patch",
      path: "/api/tasks/document/{collection_name}",
      summary: "Update a task document's status (done sets ended_at to now, UTC)",
      request: {
        params: Params,
        body: { content: { "application/json": { schema: TaskPatch } }, required: true },
      },
      responses: {
        200: json(TaskDocument, "The updated document"),
        404: json(z.object({ detail: z.string() }), "None"),
      },
    }),
    async (c) => {
      const { collection_name } = c.req.valid("param");
      const { status } = c.req.valid("json");
      const set = status === "done" ? { status, ended_at: new Date().toISOString() } : { status };
      const doc = await c.var.deps.store.patch(tasksRef(c.var.deps.config.TESSERA_DB), collection_name, set);
      if (!doc) throw notFound(collection_name);
      return c.json(strip(doc) as z.infer<typeof TaskDocument>, 200);
    },
  );

  app.openapi(
    taskRoute({
      method: "delete",
      path: "/api/tasks/document/{collection_name}",
      summary: "Delete a task configuration document (the dataset itself stays)",
      request: { params: Params },
      responses: {
        200: json(z.object({ deleted: z.string() }), "Deleted"),
        404: json(z.object({ detail: z.string() }), "None"),
      },
    }),
    async (c) => {
      const { collection_name } = c.req.valid("param");
      if (!await c.var.deps.store.delete(tasksRef(c.var.deps.config.TESSERA_DB), collection_name)) {
        throw notFound(collection_name);
      }
      return c.json({ deleted: collection_name }, 200);
    },
  );
  return app;
}
