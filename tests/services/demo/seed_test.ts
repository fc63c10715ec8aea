import assert from "node:assert/strict";
import { KvStore } from "../../../store/kv.ts";
import { DEMO_DB, DEMO_SPATIAL, isEmpty, seedDemo } from "../../../services/demo/seed.ts";
import { findDataset } from "../../../services/datasets/registry.ts";

Deno.test("seedDemo: three catalogued datasets and the spatial task; a second seed replaces, not doubles", async () => {
  const dir = await Deno.makeTempDir();
  const store = await KvStore.open(`${dir}/s.kv`);
  try {
    assert.equal(await isEmpty(store, "tessera"), true);
    const counts = await seedDemo(store, "tessera");
    assert.deepEqual(counts, { loan_approvals: 50_000, customer_churn: 2000, sensor_readings: 1440 });
    assert.equal(await isEmpty(store, "tessera"), false);
    await seedDemo(store, "tessera");
    assert.equal(await store.count({ db: DEMO_DB, collection: DEMO_SPATIAL }), 50_000);
    const ds = await findDataset(store, "tessera", DEMO_SPATIAL);
    assert.deepEqual(ds?.columns.map((c) => c.name), [
      "lat",
      "lon",
      "y_true",
      "y_pred",
      "y_pred_prob",
      "region_ids",
    ]);
    const task = await store.get({ db: "tessera", collection: "tasks" }, DEMO_SPATIAL);
    assert.equal(task?.database_name, DEMO_DB);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
