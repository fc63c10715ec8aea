/** `POST .../mitigate/writeback`: mitigated predictions into a new field of each listed document. */
import { z } from "@hono/zod-openapi";
import { newRouter, securedRoute } from "./env.ts";
import { errorResponses, json } from "./schemas.ts";
import { WritebackRequest, WritebackResponse } from "./spatial_schemas.ts";
import { taskCollection, TaskParams } from "./spatial.ts";
import { requireTasks } from "./tasks.ts";
import { InvalidInputError, NotFoundError } from "../core/errors.ts";
import { createdByTask, writebackFields, writebackRefusal } from "../core/spatial/writeback.ts";
import type { CollectionRef, Doc, Store } from "../store/store.ts";

const BATCH = 1000;
const HISTORY = 50;
const PATH = "/api/spatial-hitl/task/{data_collection_name}/mitigate/writeback";

/**
 * The first of the documents `ids` that holds `field` already (null: none does). One pass over the
 * collection carrying only that field, stopping at the first hit: exact for every document at risk.
 */
async function firstHolder(store: Store, ref: CollectionRef, field: string, ids: Set<string>) {
  for await (const batch of store.stream(ref, { projection: [field], batchSize: BATCH })) {
    const hit = batch.find((d) => Object.hasOwn(d, field) && ids.has(d._id));
    if (hit) return hit._id;
  }
  return null;
}

/**
 * Sets what `change` makes of the task document's current state, by a compare-and-set on a revision
 * token retried on a race: of two concurrent write-backs neither loses the other's field or history
 * entry. A task without a token gets a fresh one first; tokens are never reused, so a change computed
 * from a state that has changed since can never match.
 */
async function updateTask(
  store: Store,
  tasks: CollectionRef,
  name: string,
  change: (task: Doc) => Record<string, unknown>,
): Promise<void> {
  for (;;) {
    const task = await store.get(tasks, name);
    if (!task) throw new NotFoundError(`no task document for collection '${name}'`);
    const rev = task.writeback_rev;
    if (typeof rev !== "string") {
      await store.compareAndSet(tasks, name, {}, { writeback_rev: crypto.randomUUID() });
      continue;
    }
    const set = { ...change(task), writeback_rev: crypto.randomUUID() };
    if (await store.compareAndSet(tasks, name, { writeback_rev: rev }, set)) return;
  }
}

export function spatialWritebackRoutes() {
  const app = newRouter();
  requireTasks(app, PATH);
  app.openapi(
    securedRoute({
      method: "post",
      path: PATH,
      tags: ["spatial-hitl"],
      summary: "Write mitigated predictions back into a new field",
      description:
        "Sets `new_field` = `y_pred` on each listed document (by `doc_id`), in batches. Running it " +
        "twice changes nothing the second time (`modified` = 0). The task document records when, by whom " +
        "and under which field (`last_writeback`, `writebacks`, and every field written in " +
        "`writeback_fields`). `new_field` may not be `_id`, a mapping key's default name (lat, lon, y_true, " +
        "y_pred, region_ids, y_pred_prob), a field any mapping recorded on the task names (a mitigation " +
        "records every field it read, defaults included), or a field any listed document already holds " +
        "unless an earlier write-back of this task created it: 422 otherwise, naming the field and such a " +
        "document, so data fields are never overwritten.",
      request: {
        params: TaskParams,
        body: { content: { "application/json": { schema: WritebackRequest } }, required: true },
      },
      responses: {
        200: json(WritebackResponse, "What was written"),
        404: json(z.object({ detail: z.string() }), "No task document"),
        ...errorResponses,
      },
    }),
    async (c) => {
      const { data_collection_name } = c.req.valid("param");
      const { new_field, preds } = c.req.valid("json");
      const { store, config } = c.var.deps;
      const ref = await taskCollection(c, data_collection_name);
      const refuse = (holder: string | null) => {
        const why = writebackRefusal(ref.task, new_field, holder);
        if (why) throw new InvalidInputError(`new_field '${new_field}' ${why}`, ["body", "new_field"]);
      };
      refuse(null);
      const seen = new Set<string>();
      preds.forEach((p, i) => {
        if (seen.has(p.doc_id)) {
          throw new InvalidInputError(`doc_id '${p.doc_id}' is listed twice`, ["body", "preds", i, "doc_id"]);
        }
        seen.add(p.doc_id);
      });
      const tasks = { db: config.TESSERA_DB, collection: "tasks" };
      if (!createdByTask(ref.task, new_field)) {
        refuse(await firstHolder(store, ref, new_field, seen));
        // claimed before writing: if the write stops halfway, a retry may still write into the field
        await updateTask(store, tasks, data_collection_name, (task) => ({
          writeback_fields: [...new Set([...writebackFields(task), new_field])],
        }));
      }
      const total = { matched: 0, modified: 0, not_found: [] as string[] };
      for (let i = 0; i < preds.length; i += BATCH) {
        const part = preds.slice(i, i + BATCH).map((p) => ({ id: p.doc_id, set: { [new_field]: p.y_pred } }));
        const r = await store.updateFields(ref, part);
        total.matched += r.matched;
        total.modified += r.modified;
        total.not_found.push(...r.missing);
      }
      const written_at = new Date().toISOString();
      const record = {
        field: new_field,
        at: written_at,
        by: c.var.principal.sub,
        ...total,
        not_found: total.not_found.length,
      };
      await updateTask(store, tasks, data_collection_name, (task) => ({
        last_writeback: record,
        writebacks: [...(Array.isArray(task.writebacks) ? task.writebacks : []), record].slice(-HISTORY),
      }));
      return c.json({ new_field, ...total, written_at }, 200);
    },
  );
  return app;
}
