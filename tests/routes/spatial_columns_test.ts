import assert from "node:assert/strict";
import { jsonBody, testApp } from "../support/app.ts";
import { jsonRequest, storeTest } from "../support/stores.ts";

Deno.test("dataset-columns: types, counts, examples and mapping defaults from the task's collection", async () => {
  const t = await testApp();
  try {
    await t.store.insertMany({ db: "geo", collection: "preds" }, [
      { latitude: 1.5, lng: 2, prediction: 1, note: "a" },
      { latitude: 2, lng: 3, prediction: 0, note: null },
      { latitude: 3, lng: 4.5, prediction: 1, extra: [1] },
    ]);
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: "geo", data_collection_name: "preds" }),
    );
    const res = await t.app.request("/api/spatial-hitl/task/preds/dataset-columns");
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.sampled, 3);
    assert.equal(body.database_name, "geo");
    const byName = Object.fromEntries(body.columns.map((c: { name: string }) => [c.name, c]));
    assert.deepEqual(byName.latitude, {
      name: "latitude",
      type: "number",
      count: 3,
      example: byName.latitude.example,
    });
    assert.equal(byName.prediction.type, "integer");
    assert.equal(byName.note.count, 1);
    assert.equal(byName.extra.type, "array");
    assert.equal(body.mapping_defaults.lat, "latitude");
    assert.equal(body.mapping_defaults.lon, "lng");
    assert.equal(body.mapping_defaults.y_pred, "prediction");
    assert.equal(body.mapping_defaults.y_true, null);

    assert.equal((await t.app.request("/api/spatial-hitl/task/unknown/dataset-columns")).status, 404);
  } finally {
    await t.close();
  }
});

storeTest("dataset-columns names what an audit without a mapping reads (latitude/longitude)", async (t) => {
  // 30 individuals; label = 0 for i = 0, 4, ..., 28 (8 of them), so equal opportunity audits 22
  const docs = Array.from({ length: 30 }, (_, i) => ({
    latitude: 40 + i * 0.1,
    longitude: 5 + (i % 6) * 0.2,
    prediction: i % 2,
    label: i % 4 === 0 ? 0 : 1,
  }));
  await t.store.insertMany({ db: t.db, collection: "geo" }, docs);
  const created = await t.app.request(
    "/api/tasks/documents",
    jsonRequest("POST", { database_name: t.db, data_collection_name: "geo" }),
  );
  assert.equal(created.status, 201);
  const cols = await (await t.app.request("/api/spatial-hitl/task/geo/dataset-columns")).json();
  assert.deepEqual(cols.mapping_defaults, {
    lat: "latitude",
    lon: "longitude",
    y_true: "label",
    y_pred: "prediction",
    region_ids: null,
    y_pred_prob: null,
  });
  const res = await t.app.request("/api/spatial-hitl/task/geo/audit", jsonRequest("POST", { n_worlds: 20 }));
  assert.equal(res.status, 200, await res.clone().text());
  const body = await res.json();
  assert.equal(body.regions_source, "kmeans"); // coordinates read from latitude/longitude
  assert.equal(body.n_individuals, 22); // y_true read from label
  // y_pred read from prediction: odd i with label 1 (none of the odd i has i % 4 = 0): 15
  assert.equal(body.n_positives, 15);
  // the same mapping written out gives the same audit
  const explicit = await t.app.request(
    "/api/spatial-hitl/task/geo/audit",
    jsonRequest("POST", {
      n_worlds: 20,
      mapping: { lat: "latitude", lon: "longitude", y_true: "label", y_pred: "prediction" },
    }),
  );
  const again = await explicit.json();
  assert.deepEqual(again.stats, body.stats);
  assert.equal(again.signif_thresh, body.signif_thresh);
});

storeTest(
  "dataset-columns and the audit read the first 200 documents; the audit then reads the collection once, projected",
  async (t) => {
    // documents 0-199 hold coordinates in lat_deg/lon_deg and a null 'latitude'; 200-259 add 'latitude'
    // and 'extra' values: outside the first 200, so neither a column count nor a default may see them
    const docs = Array.from({ length: 260 }, (_, i) => ({
      lat_deg: 40 + (i % 13) * 0.1,
      lon_deg: 5 + (i % 7) * 0.2,
      latitude: i < 200 ? null : 41,
      prediction: i % 2,
      ...(i >= 200 ? { extra: i } : {}),
    }));
    await t.store.insertMany({ db: t.db, collection: "wide" }, docs);
    await t.app.request(
      "/api/tasks/documents",
      jsonRequest("POST", { database_name: t.db, data_collection_name: "wide" }),
    );
    const streams: (string[] | undefined)[] = [];
    // a store that cannot be opened again is read on this side, where the spy below sees every read
    // (a worker reads the same way on its own connection: workers/tasks/dataset.ts)
    Object.defineProperty(t.store, "location", { value: null });
    const stream = t.store.stream.bind(t.store);
    t.store.stream = (ref, opts) => {
      if (ref.collection === "wide") streams.push(opts?.projection);
      return stream(ref, opts);
    };
    const cols = await (await t.app.request("/api/spatial-hitl/task/wide/dataset-columns")).json();
    assert.equal(cols.sampled, 200);
    const byName = Object.fromEntries(cols.columns.map((c: { name: string }) => [c.name, c]));
    assert.equal(byName.latitude.count, 0);
    assert.equal(byName.extra, undefined);
    assert.equal(cols.mapping_defaults.lat, "lat_deg");
    assert.equal(cols.mapping_defaults.lon, "lon_deg");
    assert.equal(streams.length, 1);

    streams.length = 0;
    const res = await t.app.request(
      "/api/spatial-hitl/task/wide/audit",
      jsonRequest("POST", { n_worlds: 20, equal_opp: false }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    assert.equal(body.n_individuals, 260);
    assert.equal(body.regions_source, "kmeans"); // from lat_deg/lon_deg, as dataset-columns said
    // keys were left out: the first 200 documents whole, then one pass carrying the mapped fields only
    // (keys whose field no document has keep their own name: projecting on it costs nothing)
    assert.deepEqual(streams, [undefined, [
      "lat_deg",
      "lon_deg",
      "y_true",
      "prediction",
      "region_ids",
      "y_pred_prob",
    ]]);

    streams.length = 0;
    const mapping = {
      lat: "lat_deg",
      lon: "lon_deg",
      y_true: "prediction",
      y_pred: "prediction",
      region_ids: "nothing",
      y_pred_prob: "nothing",
    };
    const all = await t.app.request("/api/spatial-hitl/task/wide/audit", jsonRequest("POST", { mapping }));
    assert.equal(all.status, 409); // 'nothing' is in no document: the data decides, a 409 naming the field
    assert.deepEqual(streams, [["lat_deg", "lon_deg", "prediction", "nothing"]]); // every key given: projected
  },
);
