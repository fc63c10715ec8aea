/**
 * Spatial HITL routes of spec 2. Each resolves `{data_collection_name}` through its task document,
 * loads the collection's mapped fields once into typed columns, and hands the CPU work to a worker.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../http/env.ts";
import { newRouter, securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import { CollectionName } from "../datasets/datasets.ts";
import { AuditRequest, AuditResponse, DatasetColumns } from "./schemas.ts";
import {
  auditMaps,
  auditOf,
  auditPayload,
  firstDocuments,
  loadIndividuals,
} from "../../services/spatial/audit.ts";
import { DisabledError, NotFoundError } from "../../core/errors.ts";
import { requireTasks } from "../tasks/tasks.ts";
import { profileFields } from "../../core/ingest/field_profile.ts";
import { defaultMapping, MAPPING_SAMPLE } from "../../core/spatial/mapping.ts";
import type { CollectionRef, Doc } from "../../store/store.ts";

export const TaskParams = z.object({ data_collection_name: CollectionName });
const NotFound = json(z.object({ detail: z.string() }), "No task document for this collection");

/** The collection a task's data lives in (404 without a task document, 503 when tasks are off). */
export async function taskCollection(
  c: Context<AppEnv>,
  name: string,
): Promise<CollectionRef & { task: Doc }> {
  const { store, config } = c.var.deps;
  if (!config.TASKS_ENABLED) {
    throw new DisabledError("task documents are disabled on this deployment (TASKS_ENABLED=false)");
  }
  const task = await store.get({ db: config.TESSERA_DB, collection: "tasks" }, name);
  if (!task) throw new NotFoundError(`no task document for collection '${name}'`);
  return { db: String(task.database_name), collection: String(task.data_collection_name), task };
}

const COLUMNS = "/api/spatial-hitl/task/{data_collection_name}/dataset-columns";
const AUDIT = "/api/spatial-hitl/task/{data_collection_name}/audit";

export function spatialRoutes() {
  const app = newRouter();
  requireTasks(app, COLUMNS, AUDIT);
  app.openapi(
    securedRoute({
      method: "get",
      path: COLUMNS,
      tags: ["spatial-hitl"],
      summary: `Columns available for mapping (from the first ${MAPPING_SAMPLE} documents)`,
      description: `The columns profile the first ${MAPPING_SAMPLE} documents in collection order (a ` +
        "fixed sample: the same data always answers the same). `mapping_defaults` is the field an audit " +
        "reads for each key its request leaves out, found in those same documents exactly as the audit " +
        "finds it: the key's own name when they hold a value in it, else a common synonym they hold " +
        "(latitude for lat...), else null (the slot is absent).",
      request: { params: TaskParams },
      responses: {
        200: json(DatasetColumns, "Fields with type, presence and an example"),
        404: NotFound,
        ...errorResponses,
      },
    }),
    async (c) => {
      const { data_collection_name } = c.req.valid("param");
      const ref = await taskCollection(c, data_collection_name);
      const docs = await firstDocuments(c, ref);
      const columns = profileFields(docs);
      return c.json({
        data_collection_name,
        database_name: ref.db,
        sampled: docs.length,
        columns,
        mapping_defaults: defaultMapping(columns),
      }, 200);
    },
  );

  app.openapi(
    securedRoute({
      method: "post",
      path: AUDIT,
      tags: ["spatial-hitl"],
      summary: "Spatial bias audit (likelihood-ratio scan statistic with Monte Carlo significance)",
      description:
        "Individuals are the collection's documents in insertion order (document ids ascending); " +
        "`idx` in `stats` is a region's position in the sorted list of region ids. rng=numpy reproduces the " +
        "reference's numpy stream, which depends on that order. A mapping key left out reads the field " +
        "dataset-columns shows for it in `mapping_defaults`; a field the request maps must be in every " +
        "document (else 422, naming the key, the field and how many documents lack it).",
      request: {
        params: TaskParams,
        body: { content: { "application/json": { schema: AuditRequest } }, required: true },
      },
      responses: { 200: json(AuditResponse, "The audit with its maps"), 404: NotFound, ...errorResponses },
    }),
    async (c) => {
      const t0 = performance.now();
      const { data_collection_name } = c.req.valid("param");
      const body = c.req.valid("json");
      const ref = await taskCollection(c, data_collection_name);
      const { ind } = await loadIndividuals(c, ref, body.mapping, { yTrue: body.equal_opp, prob: false });
      const reply = await auditOf(c, ind, body);
      const maps = await auditMaps(c, ind, reply, ind.yPred, {
        full: body.full_distribution,
        seed: body.seed,
        title: `Spatial audit of ${data_collection_name}`,
      });
      return c.json({ ...auditPayload(reply, maps), elapsed_ms: Math.round(performance.now() - t0) }, 200);
    },
  );
  return app;
}
