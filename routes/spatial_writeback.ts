/** `POST .../mitigate/writeback`: mitigated predictions into a new field of each listed document. */
import { z } from "@hono/zod-openapi";
import { newRouter, securedRoute } from "./env.ts";
import { errorResponses, json } from "./schemas.ts";
import { WritebackRequest, WritebackResponse } from "./spatial_schemas.ts";
import { taskCollection, TaskParams } from "./spatial.ts";
import { InvalidInputError } from "../core/errors.ts";
import { MAPPING_KEYS } from "../core/spatial/mapping.ts";
import type { CollectionRef, Doc, Store } from "../store/store.ts";

const BATCH = 1000;
const HISTORY = 50;
/** Documents sampled to learn which fields the collection already has (as dataset-columns does). */
const SAMPLE = 200;

/** Field names a mapping object names (its values), or none. */
const mappedNames = (m: unknown): string[] =>
  m && typeof m === "object" ? Object.values(m as Record<string, unknown>).map(String) : [];

/** Fields earlier write-backs of this task created (so writing into them again is allowed). */
function ownFields(task: Record<string, unknown>): Set<string> {
  const own = Array.isArray(task.writeback_fields) ? task.writeback_fields.map(String) : [];
  return new Set(own);
}

/**
 * Why `field` may not be written, or null when it may. Never `_id`, a mapping key's default name, or a
 * field any mapping recorded on the task names (`mapping`, or the `mapping` of any record such as
 * `last_mitigation`); and never a field the collection's documents already hold (judged on a sample)
 * unless an earlier write-back of this task created it: mapped fields are data fields, so this keeps
 * every field an audit or a mitigation may read, whichever mapping named it.
 */
async function refusal(
  store: Store,
  ref: CollectionRef & { task: Doc },
  field: string,
): Promise<string | null> {
  const task = ref.task;
  const mapped = [task.mapping, ...Object.values(task).map((v) => (v as { mapping?: unknown })?.mapping)]
    .flatMap(mappedNames);
  if (field === "_id" || (MAPPING_KEYS as readonly string[]).includes(field) || mapped.includes(field)) {
    return "is _id or a field a mapping of the task uses";
  }
  if (ownFields(task).has(field)) return null;
  const docs = await store.sample(ref, SAMPLE);
  if (docs.some((d) => Object.hasOwn(d, field))) {
    return "already exists in the collection's documents and no write-back of this task created it";
  }
  return null;
}

export function spatialWritebackRoutes() {
  const app = newRouter();
  app.openapi(
    securedRoute({
      method: "post",
      path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/writeback",
      tags: ["spatial-hitl"],
      summary: "Write mitigated predictions back into a new field",
      description:
        "Sets `new_field` = `y_pred` on each listed document (by `doc_id`), in batches. Running it " +
        "twice changes nothing the second time (`modified` = 0). The task document records when, by whom " +
        "and under which field (`last_writeback`, `writebacks`, and every field written in " +
        "`writeback_fields`). `new_field` may not be `_id`, a mapping key's default name (lat, lon, y_true, " +
        "y_pred, region_ids, y_pred_prob), a field any mapping recorded on the task names, or a field the " +
        `collection's documents already hold (seen in a sample of ${SAMPLE}) unless an earlier write-back ` +
        "of this task created it: 422 otherwise, so data fields (every mapped field among them) are never " +
        "overwritten.",
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
      const why = await refusal(store, ref, new_field);
      if (why) throw new InvalidInputError(`new_field '${new_field}' ${why}`, ["body", "new_field"]);
      const seen = new Set<string>();
      preds.forEach((p, i) => {
        if (seen.has(p.doc_id)) {
          throw new InvalidInputError(`doc_id '${p.doc_id}' is listed twice`, ["body", "preds", i, "doc_id"]);
        }
        seen.add(p.doc_id);
      });
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
      const history = Array.isArray(ref.task.writebacks) ? ref.task.writebacks : [];
      await store.patch({ db: config.TESSERA_DB, collection: "tasks" }, data_collection_name, {
        last_writeback: record,
        writebacks: [...history, record].slice(-HISTORY),
        writeback_fields: [...new Set([...ownFields(ref.task), new_field])],
      });
      return c.json({ new_field, ...total, written_at }, 200);
    },
  );
  return app;
}
