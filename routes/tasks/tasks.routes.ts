/** The task document routes: list, create, get, update the status of, and delete a dataset's document. */
import { z } from "@hono/zod-openapi";
import { securedRoute } from "../http/router.ts";
import { errorResponses, json, jsonBody } from "../http/schemas.ts";
import {
  Deleted,
  Detail,
  TaskCreate,
  TaskDocument,
  TaskParams,
  TaskPatch,
  TaskQuery,
} from "./tasks.schemas.ts";

/** The 404 of a collection without a task document. */
const none = json(Detail, "None");

const taskRoute = <R extends Parameters<typeof securedRoute>[0]>(r: R) =>
  securedRoute({ ...r, tags: ["tasks"], responses: { ...r.responses, ...errorResponses } });

export const list = taskRoute({
  role: "viewer",
  method: "get",
  path: "/api/tasks/documents",
  summary: "List task configuration documents",
  request: { query: TaskQuery },
  responses: { 200: json(z.array(TaskDocument), "The matching documents") },
});

export const create = taskRoute({
  role: "steward",
  method: "post",
  path: "/api/tasks/documents",
  summary: "Create a task configuration document",
  request: jsonBody(TaskCreate),
  responses: { 201: json(TaskDocument, "The created document"), 409: json(Detail, "It exists") },
});

export const get = taskRoute({
  role: "viewer",
  method: "get",
  path: "/api/tasks/document/{collection_name}",
  summary: "Get one task configuration document",
  request: { params: TaskParams },
  responses: { 200: json(TaskDocument, "The document"), 404: none },
});

export const patch = taskRoute({
  role: "steward",
  method: "patch",
  path: "/api/tasks/document/{collection_name}",
  summary: "Update a task document's status (done sets ended_at to now, UTC)",
  request: { params: TaskParams, ...jsonBody(TaskPatch) },
  responses: { 200: json(TaskDocument, "The updated document"), 404: none },
});

export const remove = taskRoute({
  role: "steward",
  method: "delete",
  path: "/api/tasks/document/{collection_name}",
  summary: "Delete a task configuration document (the dataset itself stays)",
  request: { params: TaskParams },
  responses: { 200: json(Deleted, "Deleted"), 404: none },
});
