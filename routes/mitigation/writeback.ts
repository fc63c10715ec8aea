/** `POST .../mitigate/writeback`: mitigated predictions into a new field of each listed document. */
import { z } from "@hono/zod-openapi";
import { newRouter, securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import { WritebackRequest, WritebackResponse } from "../spatial/schemas.ts";
import { taskCollection, TaskParams } from "../spatial/spatial.ts";
import { requireTasks } from "../tasks/tasks.ts";
import { InvalidInputError } from "../../core/errors.ts";
import { createdByTask, writebackRefusal } from "../../core/spatial/mitigate/writeback_policy.ts";
import {
  claimWritebackField,
  firstHolder,
  recordWriteback,
  writePredictions,
} from "../../services/mitigation/writeback.ts";

const PATH = "/api/spatial-hitl/task/{data_collection_name}/mitigate/writeback";

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
        await claimWritebackField(store, tasks, data_collection_name, new_field);
      }
      const total = await writePredictions(store, ref, new_field, preds);
      const written_at = new Date().toISOString();
      await recordWriteback(store, tasks, data_collection_name, {
        field: new_field,
        at: written_at,
        by: c.var.principal.sub,
        ...total,
        not_found: total.not_found.length,
      });
      return c.json({ new_field, ...total, written_at }, 200);
    },
  );
  return app;
}
