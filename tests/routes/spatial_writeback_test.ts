import assert from "node:assert/strict";
import { storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";

storeTest("writeback: sets the field, reports matched/modified/not found, and is idempotent", async (t) => {
  const ref = { db: t.db, collection: "preds" };
  const ids = await t.store.insertMany(ref, [{ y_pred: 0 }, { y_pred: 1 }, { y_pred: 0 }]);
  await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: "preds" }),
  );
  const body = {
    new_field: "y_pred_fair",
    preds: [{ doc_id: ids[0], y_pred: 1 }, { doc_id: ids[1], y_pred: 1 }, { doc_id: "nope", y_pred: 0 }],
  };
  const url = "/api/spatial-hitl/task/preds/mitigate/writeback";
  const first = await (await t.app.request(url, jsonBody("POST", body))).json();
  assert.equal(first.matched, 2);
  assert.equal(first.modified, 2);
  assert.deepEqual(first.not_found, ["nope"]);
  const docs = [];
  for await (const b of t.store.stream(ref)) docs.push(...b);
  assert.deepEqual(docs.map((d) => [d.y_pred, d.y_pred_fair]), [[0, 1], [1, 1], [0, undefined]]);

  const second = await (await t.app.request(url, jsonBody("POST", body))).json();
  assert.equal(second.matched, 2);
  assert.equal(second.modified, 0);

  const task = await (await t.app.request("/api/tasks/document/preds")).json();
  assert.equal(task.last_writeback.field, "y_pred_fair");
  assert.equal(task.last_writeback.by, "anonymous");
  assert.equal(task.writebacks.length, 2);
});

storeTest("writeback: reserved and malformed fields, duplicates and unknown tasks are refused", async (t) => {
  await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: "preds" }),
  );
  const post = (body: unknown, name = "preds") =>
    t.app.request(`/api/spatial-hitl/task/${name}/mitigate/writeback`, jsonBody("POST", body));
  const preds = [{ doc_id: "a", y_pred: 1 }];
  for (const bad of ["_id", "y_pred", "lat"]) {
    const r = await post({ new_field: bad, preds });
    assert.equal(r.status, 422);
    assert.deepEqual((await r.json()).detail[0].loc, ["body", "new_field"]);
  }
  const pattern = await post({ new_field: "1bad-name", preds });
  assert.equal((await pattern.json()).detail[0].type, "string_pattern_mismatch");
  const value = await post({ new_field: "ok", preds: [{ doc_id: "a", y_pred: 2 }] });
  assert.deepEqual((await value.json()).detail[0].loc, ["body", "preds", 0, "y_pred"]);
  const dup = await post({ new_field: "ok", preds: [...preds, ...preds] });
  assert.deepEqual((await dup.json()).detail[0].loc, ["body", "preds", 1, "doc_id"]);
  assert.equal((await post({ new_field: "ok", preds }, "missing")).status, 404);
});
