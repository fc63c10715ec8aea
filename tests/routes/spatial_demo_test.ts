import assert from "node:assert/strict";
import { storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";
import { importRecords } from "../../services/datasets/import.ts";
import { SPATIAL_DEMO, spatialDemo } from "../../core/demo/datasets.ts";
import { DEMO_DB, DEMO_SERIES, DEMO_SPATIAL, DEMO_TABULAR, seedDemo } from "../../services/demo/seed.ts";

async function* rows(n: number) {
  yield* spatialDemo({ ...SPATIAL_DEMO, n });
}

storeTest("audit on demo data: the planted regions are the significant ones", async (t) => {
  await importRecords(t.store, t.config.TESSERA_DB, { db: t.db, collection: "loans" }, rows(6000));
  await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: "loans" }),
  );
  const cols = await (await t.app.request("/api/spatial-hitl/task/loans/dataset-columns")).json();
  assert.deepEqual(
    Object.values(cols.mapping_defaults),
    ["lat", "lon", "y_true", "y_pred", "region_ids", "y_pred_prob"],
  );
  const res = await t.app.request(
    "/api/spatial-hitl/task/loans/audit",
    jsonBody("POST", { equal_opp: false }),
  );
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.n_individuals, 6000);
  const signif = body.stats.filter((s: { is_signif: boolean }) => s.is_signif).map((
    s: { region_id: number },
  ) => s.region_id);
  // every planted cell (6, 12, 18: the model subtracts 1.2 logits there) stands out at α = 0.005
  for (const cell of SPATIAL_DEMO.biased) assert.ok(signif.includes(cell), `region ${cell} in ${signif}`);
});

storeTest(
  "audit on the seeded demo task (50,000 individuals, equal opportunity, numpy stream)",
  async (t) => {
    // the same seeding as `deno task seed`, into this run's store (its demo database is dropped after)
    await seedDemo(t.store, t.config.TESSERA_DB);
    try {
      const res = await t.app.request(
        `/api/spatial-hitl/task/${DEMO_SPATIAL}/audit`,
        jsonBody("POST", { rng: "numpy", n_worlds: 100 }),
      );
      assert.equal(res.status, 200, await res.clone().text());
      const body = await res.json();
      assert.equal(body.rng, "numpy");
      assert.ok(body.n_individuals > 10_000 && body.n_individuals < 50_000); // y_true = 1 only
      assert.equal(body.stats.length, 25);
      assert.ok(body.total_signif_regions >= 3);
    } finally {
      for (const collection of [DEMO_SPATIAL, DEMO_TABULAR, DEMO_SERIES]) {
        await t.store.dropCollection({ db: DEMO_DB, collection });
      }
    }
  },
);
