/** The task documents' shapes (spec 2 "Task documents"). */
import { z } from "@hono/zod-openapi";
import { CollectionName, DatabaseName } from "../datasets/datasets.schemas.ts";
import { depthNote, Detail, shallowJson } from "../http/schemas.ts";

const Timestamp = z.iso.datetime({ offset: true });
const Status = z.string().min(1).max(64);

export const TaskDocument = z.object({
  pipeline_name: z.string().nullable().optional(),
  database_name: DatabaseName,
  data_collection_name: CollectionName,
  status: Status,
  component: z.string().nullable().optional(),
  started_at: Timestamp.nullable().optional(),
  ended_at: Timestamp.nullable().optional(),
  metadata: shallowJson(z.record(z.string(), z.unknown())).optional().openapi({
    description: `Free key-values of the pipeline. ${depthNote()}`,
  }),
}).openapi("TaskDocument");

export const TaskCreate = TaskDocument.extend({ status: Status.default("pending") }).strict();
export const TaskPatch = z.object({ status: Status }).strict().openapi("TaskPatch");
export const TaskQuery = z.object({ status: z.string().optional(), component: z.string().optional() });
export const TaskParams = z.object({ collection_name: CollectionName });
export { Detail };
export const Deleted = z.object({ deleted: z.string() });
