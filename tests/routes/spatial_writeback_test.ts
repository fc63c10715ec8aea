import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../support/stores.ts";
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
    assert.equal(mapped.status, 409);
    const mappedDetail = (await mapped.json()).detail[0];
    assert.deepEqual(mappedDetail.loc, ["body", "new_field"]);
    assert.match(mappedDetail.msg, /mapping/);
    const existing = await post("income");
    assert.equal(existing.status, 409);
    assert.equal(
      (await existing.json()).detail[0].msg,
      `new_field 'income' is held already by document '${ids[0]}' and no write-back of this task created it`,
    );
    // a field a mapping on the task names is refused even when no document holds it yet
    await t.store.patch({ db: t.config.TESSERA_DB, collection: "tasks" }, "custom", {
      mapping: { y_true: "truth_later" },
    });
    assert.equal((await post("truth_later")).status, 409);
    // a new field is written, and writing into it again is allowed (this task created it)
    for (const modified of [1, 0]) {
      const r = await post("pred_fair");
      assert.equal(r.status, 200);
      assert.equal((await r.json()).modified, modified);
    }
    const task = await (await t.app.request("/api/tasks/document/custom")).json();
    assert.deepEqual(task.writeback_fields, ["pred_fair"]);
    assert.equal((await post("pred_v2")).status, 409); // still refused after a write-back
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
    assert.equal(refused.status, 409);
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
    assert.equal(res.status, 409);
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

/** A relabel of the task's collection (exact solver, statistical parity); its answer. */
async function relabel(t: StoreApp, name: string, extra: Record<string, unknown> = {}) {
  const res = await t.app.request(
    `/api/spatial-hitl/task/${name}/mitigate/relabel`,
    jsonBody("POST", { equal_opp: false, n_worlds: 20, approx: false, include_maps: false, ...extra }),
  );
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

const writebackOf = (t: StoreApp, name: string, body: unknown) =>
  t.app.request(`/api/spatial-hitl/task/${name}/mitigate/writeback`, jsonBody("POST", body));

/** Every document of a collection by id. */
async function docsById(t: StoreApp, collection: string) {
  const out = new Map<string, Record<string, unknown>>();
  for await (const batch of t.store.stream({ db: t.db, collection })) {
    for (const d of batch) out.set(d._id, d);
  }
  return out;
}

storeTest(
  "writeback by run_id: every document the run judged gets its final prediction; twice changes nothing",
  async (t) => {
    // 1,200 individuals, three regions: region 0 predicts 1 for 300 of 400, regions 1 and 2 for 100
    // of 400 each. The run's predictions span several chunks and the write several batches.
    const ref = { db: t.db, collection: "full" };
    await t.store.insertMany(
      ref,
      Array.from({ length: 1200 }, (_, i) => ({
        region_ids: [i % 3],
        y_pred: (i % 3 === 0 ? i % 4 !== 0 : i % 4 === 0) ? 1 : 0,
      })),
    );
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "full" }),
    );
    const answer = await relabel(t, "full");
    assert.ok(answer.n_flips > 0);
    const first = await writebackOf(t, "full", { new_field: "y_pred_fair", run_id: answer.run_id });
    assert.equal(first.status, 200, await first.clone().text());
    const body = await first.json();
    // relabel judges every individual: all 1,200 documents are written, none is missing
    assert.deepEqual([body.matched, body.modified, body.not_found, body.run_id], [
      1200,
      1200,
      [],
      answer.run_id,
    ]);
    const docs = await docsById(t, "full");
    assert.equal(docs.size, 1200);
    let changed = 0;
    for (const d of docs.values()) {
      assert.ok(d.y_pred_fair === 0 || d.y_pred_fair === 1, `${d._id} has y_pred_fair`);
      if (d.y_pred_fair !== d.y_pred) changed++;
    }
    // the documents whose field differs from y_pred are exactly the flips
    assert.equal(changed, answer.n_flips);
    const flipped = answer.mitigated_preds.filter((p: { flipped: boolean }) => p.flipped);
    for (const p of flipped) assert.notEqual(docs.get(p.doc_id)!.y_pred_fair, docs.get(p.doc_id)!.y_pred);

    const second = await (await writebackOf(t, "full", { new_field: "y_pred_fair", run_id: answer.run_id }))
      .json();
    assert.deepEqual([second.matched, second.modified, second.not_found], [1200, 0, []]);
    const task = await (await t.app.request("/api/tasks/document/full")).json();
    assert.equal(task.last_writeback.run_id, answer.run_id);
    assert.equal(task.last_writeback.field, "y_pred_fair");
    assert.deepEqual([task.last_writeback.matched, task.last_writeback.modified], [1200, 0]);
    assert.equal(task.last_mitigation.run_id, answer.run_id);
    // the answer by preds is unchanged: no run_id in it, null in the record
    const byPreds = await (await writebackOf(t, "full", {
      new_field: "y_pred_fair",
      preds: [{ doc_id: flipped[0].doc_id, y_pred: flipped[0].y_pred }],
    })).json();
    assert.equal("run_id" in byPreds, false);
    const after = await (await t.app.request("/api/tasks/document/full")).json();
    assert.equal(after.last_writeback.run_id, null);
  },
);

storeTest("writeback by run_id: a threshold run writes its test part only", async (t) => {
  const ref = { db: t.db, collection: "thr" };
  await t.store.insertMany(
    ref,
    Array.from({ length: 60 }, (_, i) => ({
      region_ids: [i % 2],
      y_true: i % 3 === 0 ? 1 : 0,
      y_pred: (i % 2 === 0 ? i % 5 !== 0 : i % 5 === 0) ? 1 : 0,
      y_pred_prob: ((i * 37) % 100) / 100,
    })),
  );
  await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: "thr" }),
  );
  const res = await t.app.request(
    "/api/spatial-hitl/task/thr/mitigate/threshold",
    jsonBody("POST", { equal_opp: false, n_worlds: 20, include_maps: false }),
  );
  assert.equal(res.status, 200, await res.clone().text());
  const answer = await res.json();
  const written = await (await writebackOf(t, "thr", { new_field: "y_fair", run_id: answer.run_id })).json();
  assert.equal(written.matched, answer.test_size);
  const docs = await docsById(t, "thr");
  const holders = [...docs.values()].filter((d) => "y_fair" in d).length;
  assert.equal(holders, answer.test_size);
  assert.equal(docs.size - holders, answer.train_size);
});

storeTest(
  "writeback by run_id: refused once the rows were imported again; a written field changes nothing",
  async (t) => {
    const rows = JSON.stringify(Array.from({ length: 30 }, (_, i) => ({
      region_ids: [i % 2],
      y_pred: (i % 2 === 0 ? i % 5 !== 0 : i % 5 === 0) ? 1 : 0,
    })));
    const upload = (body: string, query = "") =>
      t.app.request(`/api/datasets/${t.db}/imported${query}`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json" },
      });
    assert.equal((await upload(rows)).status, 200);
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "imported" }),
    );
    const answer = await relabel(t, "imported");
    const docs = [...(await docsById(t, "imported")).keys()];
    // a write-back adds a field: the rows are the same rows, the run stays writable
    const note = await writebackOf(t, "imported", {
      new_field: "note",
      preds: [{ doc_id: docs[0], y_pred: 1 }],
    });
    assert.equal(note.status, 200);
    const ok = await writebackOf(t, "imported", { new_field: "y_pred_fair", run_id: answer.run_id });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.equal((await ok.json()).matched, 30);
    // the same rows imported again, replacing: the run's doc ids and rows are no longer these
    const replaced = await upload(rows, "?replace=true");
    assert.equal(replaced.status, 200, await replaced.clone().text());
    const refused = await writebackOf(t, "imported", { new_field: "y_pred_fair", run_id: answer.run_id });
    assert.equal(refused.status, 409);
    assert.match(
      (await refused.json()).detail,
      new RegExp(`imported again, replaced or appended to since run '${answer.run_id}'`),
    );
    for (const d of (await docsById(t, "imported")).values()) assert.equal("y_pred_fair" in d, false);
    // a run on the new rows is writable; an appending import makes it stale too
    const fresh = await relabel(t, "imported");
    assert.equal(
      (await writebackOf(t, "imported", { new_field: "y_pred_fair", run_id: fresh.run_id })).status,
      200,
    );
    assert.equal((await upload('[{"region_ids": [0], "y_pred": 1}]')).status, 200);
    assert.equal(
      (await writebackOf(t, "imported", { new_field: "y_pred_fair", run_id: fresh.run_id })).status,
      409,
    );
  },
);

storeTest(
  "writeback by run_id: another task's run, an audit run, an unknown run, and preds with run_id are refused",
  async (t) => {
    for (const name of ["one", "two"]) {
      await t.store.insertMany(
        { db: t.db, collection: name },
        Array.from(
          { length: 20 },
          (_, i) => ({ region_ids: [i < 10 ? 0 : 1], y_pred: i < 8 || i === 10 ? 1 : 0 }),
        ),
      );
      await t.app.request(
        "/api/tasks/documents",
        jsonBody("POST", { database_name: t.db, data_collection_name: name }),
      );
    }
    const one = await relabel(t, "one");
    const other = await writebackOf(t, "two", { new_field: "y_fair", run_id: one.run_id });
    assert.equal(other.status, 409);
    assert.match((await other.json()).detail, new RegExp(`run '${one.run_id}' belongs to task 'one'`));
    const audit = await (await t.app.request(
      "/api/spatial-hitl/task/one/audit",
      jsonBody("POST", { equal_opp: false, n_worlds: 20, include_maps: false }),
    )).json();
    const auditRun = await writebackOf(t, "one", { new_field: "y_fair", run_id: audit.run_id });
    assert.equal(auditRun.status, 409);
    assert.match((await auditRun.json()).detail, /is an audit: it has no predictions to write/);
    const unknown = await writebackOf(t, "one", { new_field: "y_fair", run_id: "0123456789abcdef01234567" });
    assert.equal(unknown.status, 404);
    assert.match((await unknown.json()).detail, /no run '0123456789abcdef01234567'/);
    const both = await writebackOf(t, "one", {
      new_field: "y_fair",
      run_id: one.run_id,
      preds: [{ doc_id: "a", y_pred: 1 }],
    });
    assert.equal(both.status, 422);
    assert.deepEqual((await both.json()).detail[0].loc, ["body", "run_id"]);
    const neither = await writebackOf(t, "one", { new_field: "y_fair" });
    assert.equal(neither.status, 422);
    assert.deepEqual((await neither.json()).detail[0].loc, ["body", "preds"]);
    const empty = await writebackOf(t, "one", { new_field: "y_fair", run_id: "" });
    assert.deepEqual((await empty.json()).detail[0].loc, ["body", "run_id"]);
    // nothing was written by any of them
    for (const d of (await docsById(t, "one")).values()) assert.equal("y_fair" in d, false);
    for (const d of (await docsById(t, "two")).values()) assert.equal("y_fair" in d, false);
  },
);

storeTest("writeback by run_id: a field the run's mapping read is refused", async (t) => {
  await t.store.insertMany(
    { db: t.db, collection: "mapped" },
    Array.from(
      { length: 20 },
      (_, i) => ({ region_ids: [i < 10 ? 0 : 1], pred_v2: i < 8 || i === 10 ? 1 : 0 }),
    ),
  );
  await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: "mapped" }),
  );
  const first = await relabel(t, "mapped", { mapping: { y_pred: "pred_v2" } });
  // a later mitigation reads another field: the task's last mapping no longer names pred_v2
  await t.store.patch({ db: t.config.TESSERA_DB, collection: "tasks" }, "mapped", {
    last_mitigation: { mapping: { y_pred: "other" } },
  });
  const res = await writebackOf(t, "mapped", { new_field: "pred_v2", run_id: first.run_id });
  assert.equal(res.status, 409);
  assert.deepEqual((await res.json()).detail[0].loc, ["body", "new_field"]);
});

// Issue 36: JSON Schema cannot refuse a doc_id listed twice, so the lines apply in order, the last one winning.
storeTest("writeback: a doc_id listed again takes its last line's y_pred", async (t) => {
  const ref = { db: t.db, collection: "twice" };
  const ids = await t.store.insertMany(ref, [{ y_pred: 0 }, { y_pred: 1 }]);
  await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: "twice" }),
  );
  const preds = [{ doc_id: ids[0], y_pred: 1 }, { doc_id: ids[1], y_pred: 1 }, { doc_id: ids[0], y_pred: 0 }];
  const res = await t.app.request(
    "/api/spatial-hitl/task/twice/mitigate/writeback",
    jsonBody("POST", { new_field: "y_fair", preds }),
  );
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal((await res.json()).matched, 2);
  assert.deepEqual([(await t.store.get(ref, ids[0]))!.y_fair, (await t.store.get(ref, ids[1]))!.y_fair], [
    0,
    1,
  ]);
});
