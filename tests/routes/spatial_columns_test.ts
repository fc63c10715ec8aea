import assert from "node:assert/strict";
import { jsonBody, testApp } from "../support/app.ts";

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
