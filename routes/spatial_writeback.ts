/** `POST .../mitigate/writeback`: mitigated predictions into a new field of each listed document. */
import { z } from "@hono/zod-openapi";
import { newRouter, securedRoute } from "./env.ts";
import { errorResponses, json } from "./schemas.ts";
import { WritebackRequest, WritebackResponse } from "./spatial_schemas.ts";
import { taskCollection, TaskParams } from "./spatial.ts";
import { InvalidInputError } from "../core/errors.ts";
import { MAPPING_KEYS } from "../core/spatial/mapping.ts";

const BATCH = 1000;
const HISTORY = 50;

/** Fields a write-back must never overwrite: `_id` and every field a mapping of the task names. */
function reservedFields(task: Record<string, unknown>): Set<string> {
  const mapped = [task.mapping, (task.last_mitigation as Record<string, unknown> | undefined)?.mapping]
    .flatMap((m) => (m && typeof m === "object" ? Object.values(m as Record<string, unknown>) : []));
  return new Set(["_id", ...MAPPING_KEYS, ...mapped.map(String)]);
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
        "and under which field. `new_field` may not be `_id` or a field the task's mapping uses.",
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
      if (reservedFields(ref.task).has(new_field)) {
        throw new InvalidInputError(
          `new_field '${new_field}' would overwrite _id or a field the task's mapping uses`,
          ["body", "new_field"],
        );
      }
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
      });
      return c.json({ new_field, ...total, written_at }, 200);
    },
  );
  return app;
}
