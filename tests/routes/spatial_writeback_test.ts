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

storeTest(
  "writeback: fields a mapping names or the documents already hold are refused; own fields are not",
  async (t) => {
    // predictions live in "pred_v2" (mapped as y_pred by the mitigation), "income" is a plain data field
    const ref = { db: t.db, collection: "custom" };
    const ids = await t.store.insertMany(
      ref,
      Array.from(
        { length: 20 },
        (_, i) => ({ pred_v2: i < 8 || i === 10 ? 1 : 0, income: i % 2, region_ids: [i < 10 ? 0 : 1] }),
      ),
    );
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "custom" }),
    );
    const relabel = await t.app.request(
      "/api/spatial-hitl/task/custom/mitigate/relabel",
      jsonBody("POST", { equal_opp: false, n_worlds: 20, mapping: { y_pred: "pred_v2" } }),
    );
    assert.equal(relabel.status, 200, await relabel.clone().text());
    const post = (new_field: string) =>
      t.app.request(
        "/api/spatial-hitl/task/custom/mitigate/writeback",
        jsonBody("POST", { new_field, preds: [{ doc_id: ids[0], y_pred: 0 }] }),
      );
    const mapped = await post("pred_v2");
    assert.equal(mapped.status, 422);
    const mappedDetail = (await mapped.json()).detail[0];
    assert.deepEqual(mappedDetail.loc, ["body", "new_field"]);
    assert.match(mappedDetail.msg, /mapping/);
    const existing = await post("income");
    assert.equal(existing.status, 422);
    assert.equal(
      (await existing.json()).detail[0].msg,
      `new_field 'income' is held already by document '${ids[0]}' and no write-back of this task created it`,
    );
    // a field a mapping on the task names is refused even when no document holds it yet
    await t.store.patch({ db: t.config.TESSERA_DB, collection: "tasks" }, "custom", {
      mapping: { y_true: "truth_later" },
    });
    assert.equal((await post("truth_later")).status, 422);
    // a new field is written, and writing into it again is allowed (this task created it)
    for (const modified of [1, 0]) {
      const r = await post("pred_fair");
      assert.equal(r.status, 200);
      assert.equal((await r.json()).modified, modified);
    }
    const task = await (await t.app.request("/api/tasks/document/custom")).json();
    assert.deepEqual(task.writeback_fields, ["pred_fair"]);
    assert.equal((await post("pred_v2")).status, 422); // still refused after a write-back
  },
);

storeTest(
  "writeback: 2,500 predictions span three batches, all written; the second run modifies none",
  async (t) => {
    const ref = { db: t.db, collection: "many" };
    const ids = await t.store.insertMany(ref, Array.from({ length: 2500 }, (_, i) => ({ y_pred: i % 2 })));
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "many" }),
    );
    // every third document flips (1 - y_pred), the others keep their prediction: all 2,500 are set
    const preds = ids.map((doc_id, i) => ({ doc_id, y_pred: i % 3 === 0 ? 1 - (i % 2) : i % 2 }));
    const url = "/api/spatial-hitl/task/many/mitigate/writeback";
    const first = await (await t.app.request(url, jsonBody("POST", { new_field: "y_pred_fair", preds })))
      .json();
    assert.deepEqual([first.matched, first.modified, first.not_found], [2500, 2500, []]);
    const byId = new Map<string, unknown>();
    for await (const batch of t.store.stream(ref)) {
      for (const d of batch) {
        byId.set(String(d._id), d.y_pred_fair);
      }
    }
    assert.equal(byId.size, 2500);
    preds.forEach((p) => assert.equal(byId.get(p.doc_id), p.y_pred));
    const second = await (await t.app.request(url, jsonBody("POST", { new_field: "y_pred_fair", preds })))
      .json();
    assert.deepEqual([second.matched, second.modified, second.not_found], [2500, 0, []]);
  },
);

storeTest(
  "writeback: a field held by 2 of 500 documents is refused exactly when a listed document holds it",
  async (t) => {
    // 'income' is a data field of documents 3 and 457 only: a sample of 200 would usually miss both
    const ref = { db: t.db, collection: "sparse" };
    const ids = await t.store.insertMany(
      ref,
      Array.from(
        { length: 500 },
        (_, i) => (i === 3 || i === 457 ? { y_pred: 0, income: i } : { y_pred: 1 }),
      ),
    );
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "sparse" }),
    );
    const post = (positions: number[]) =>
      t.app.request(
        "/api/spatial-hitl/task/sparse/mitigate/writeback",
        jsonBody("POST", {
          new_field: "income",
          preds: positions.map((i) => ({ doc_id: ids[i], y_pred: 1 })),
        }),
      );
    const refused = await post([0, 457, 499]);
    assert.equal(refused.status, 422);
    const detail = (await refused.json()).detail[0];
    assert.deepEqual(detail.loc, ["body", "new_field"]);
    assert.equal(
      detail.msg,
      `new_field 'income' is held already by document '${
        ids[457]
      }' and no write-back of this task created it`,
    );
    assert.equal((await t.store.get(ref, ids[457]))!.income, 457);
    assert.equal((await t.store.get(ref, ids[0]))!.income, undefined);
    // documents that do not hold it may receive it: no data field is overwritten
    const allowed = await post([0, 499]);
    assert.equal(allowed.status, 200, await allowed.clone().text());
    assert.equal((await allowed.json()).modified, 2);
    assert.equal((await t.store.get(ref, ids[3]))!.income, 3);
    assert.equal((await t.store.get(ref, ids[0]))!.income, 1);
    // now the task created it: writing it again, into any document, is allowed
    assert.equal((await post([0, 3])).status, 200);
  },
);

storeTest(
  "writeback: the mitigation records every field it read, so a default-mapped field is refused",
  async (t) => {
    // y_pred reads 'prediction' and y_pred_prob 'score' by default; only document 19 holds a score
    const ref = { db: t.db, collection: "syn" };
    const ids = await t.store.insertMany(
      ref,
      Array.from({ length: 20 }, (_, i) => ({
        prediction: i < 8 || i === 10 ? 1 : 0,
        region_ids: [i < 10 ? 0 : 1],
        ...(i === 19 ? { score: 0.5 } : {}),
      })),
    );
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "syn" }),
    );
    const relabel = await t.app.request(
      "/api/spatial-hitl/task/syn/mitigate/relabel",
      jsonBody("POST", { equal_opp: false, n_worlds: 20 }),
    );
    assert.equal(relabel.status, 200, await relabel.clone().text());
    const task = await (await t.app.request("/api/tasks/document/syn")).json();
    assert.deepEqual(task.last_mitigation.mapping, {
      lat: "lat",
      lon: "lon",
      y_true: "y_true",
      y_pred: "prediction",
      region_ids: "region_ids",
      y_pred_prob: "score",
    });
    // document 0 holds no score, yet score is refused: the mitigation read it
    const res = await t.app.request(
      "/api/spatial-hitl/task/syn/mitigate/writeback",
      jsonBody("POST", { new_field: "score", preds: [{ doc_id: ids[0], y_pred: 1 }] }),
    );
    assert.equal(res.status, 422);
    assert.match((await res.json()).detail[0].msg, /a mapping of the task uses/);
  },
);

storeTest(
  "writeback: concurrent write-backs of one task each keep their field and history entry",
  async (t) => {
    const ref = { db: t.db, collection: "race" };
    const ids = await t.store.insertMany(ref, Array.from({ length: 6 }, () => ({ y_pred: 0 })));
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "race" }),
    );
    const fields = ["fair_a", "fair_b", "fair_c", "fair_d", "fair_e", "fair_f"];
    // each into a document of its own: the race under test is the task record's, not the documents'
    const replies = await Promise.all(fields.map((new_field, i) =>
      t.app.request(
        "/api/spatial-hitl/task/race/mitigate/writeback",
        jsonBody("POST", { new_field, preds: [{ doc_id: ids[i], y_pred: 1 }] }),
      )
    ));
    assert.deepEqual(replies.map((r) => r.status), fields.map(() => 200));
    const task = await (await t.app.request("/api/tasks/document/race")).json();
    assert.deepEqual([...task.writeback_fields].sort(), fields);
    assert.deepEqual(task.writebacks.map((w: { field: string }) => w.field).sort(), fields);
    for (const [i, f] of fields.entries()) assert.equal((await t.store.get(ref, ids[i]))![f], 1);
  },
);
