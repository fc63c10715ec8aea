import assert from "node:assert/strict";
import { storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";

type T = Parameters<Parameters<typeof storeTest>[1]>[0];

/** 20 individuals: region 0 holds 8 positives of 10, region 1 holds 2 of 10 (as spatial_frontier_test). */
const docs = Array.from({ length: 20 }, (_, i) => ({
  y_pred: i < 10 ? (i < 8 ? 1 : 0) : (i < 12 ? 1 : 0),
  y_true: i % 3 === 0 ? 1 : 0,
  y_pred_prob: i < 10 ? (i < 8 ? 0.6 + i / 50 : 0.3) : (i < 12 ? 0.55 : 0.2 + i / 100),
  region_ids: [i < 10 ? 0 : 1],
}));
const BASE = "/api/spatial-hitl/task/preds/mitigate";
const settings = { equal_opp: false, n_worlds: 50, include_maps: false };

async function setUp(t: T) {
  await t.store.insertMany({ db: t.db, collection: "preds" }, docs);
  const task = { database_name: t.db, data_collection_name: "preds" };
  assert.equal((await t.app.request("/api/tasks/documents", jsonBody("POST", task))).status, 201);
}

storeTest(
  "relabel with frozen_regions: no member of a frozen region flips; the answer echoes it",
  async (t) => {
    await setUp(t);
    for (const approx of [true, false]) {
      const res = await t.app.request(
        `${BASE}/relabel`,
        jsonBody("POST", { ...settings, approx, budget_constr: 0.3, frozen_regions: [0, 0] }),
      );
      assert.equal(res.status, 200, await res.clone().text());
      const body = await res.json();
      assert.deepEqual(body.frozen_regions, [0]);
      assert.equal(body.max_flips_per_region, null);
      const perRegion = Object.fromEntries(
        body.n_flips_per_region.map((r: { region_id: number; n_flips: number }) => [r.region_id, r.n_flips]),
      );
      assert.equal(perRegion[0], 0);
      // region 1 (2 of 10 positive) moves toward the overall rate on its own: up flips only
      assert.ok(perRegion[1] > 0 && body.n_flips === perRegion[1], JSON.stringify(perRegion));
    }
  },
);

storeTest("relabel and threshold with max_flips_per_region: no region flips more than its cap", async (t) => {
  await setUp(t);
  // budget 6 would flip 3 in each region (the frontier test's optimum); a cap of 0.2 of 10 members allows 2
  const res = await t.app.request(
    `${BASE}/relabel`,
    jsonBody("POST", { ...settings, budget_constr: 0.3, max_flips_per_region: 0.2 }),
  );
  assert.equal(res.status, 200, await res.clone().text());
  const body = await res.json();
  assert.equal(body.max_flips_per_region, 0.2);
  for (const r of body.n_flips_per_region) assert.ok(r.n_flips <= 2, JSON.stringify(r));
  assert.equal(body.n_flips, 4);
  const th = await t.app.request(
    `${BASE}/threshold`,
    jsonBody("POST", { ...settings, budget_constr: 0.5, max_flips_per_region: 1.5, frozen_regions: [1] }),
  );
  assert.equal(th.status, 200, await th.clone().text());
  const tb = await th.json();
  assert.deepEqual(tb.frozen_regions, [1]);
  const frozen = tb.new_thresholds.find((r: { region_id: number }) => r.region_id === 1);
  assert.equal(frozen.threshold, 0.5); // a frozen region keeps default_boundary
});

storeTest("frozen_regions naming no region of the audit is a 409 naming its place", async (t) => {
  await setUp(t);
  // the task's documents make the regions, so /openapi.json cannot rule the id out: not a 422
  for (const route of ["relabel", "threshold"]) {
    const bad = await t.app.request(
      `${BASE}/${route}`,
      jsonBody("POST", { ...settings, frozen_regions: [1, 7] }),
    );
    assert.equal(bad.status, 409, route);
    const { detail } = await bad.json();
    assert.deepEqual(detail[0].loc, ["body", "frozen_regions", 1]);
    assert.match(detail[0].msg, /region 7/);
  }
});

storeTest("a region id past 2^53 - 1, or a negative cap, is a 422 naming the field", async (t) => {
  await setUp(t);
  // the document states the bound (maximum), so a request past it is invalid
  const doc = await (await t.app.request("/openapi.json")).json();
  for (const route of ["relabel", "threshold"]) {
    let schema = doc.paths[`${BASE}/${route}`.replace("preds", "{data_collection_name}")].post.requestBody
      .content["application/json"].schema;
    if (schema.$ref) schema = doc.components.schemas[schema.$ref.split("/").pop()];
    assert.equal(schema.properties.frozen_regions.items.maximum, Number.MAX_SAFE_INTEGER, route);
  }
  const big = await t.app.request(
    `${BASE}/relabel`,
    jsonBody("POST", { ...settings, frozen_regions: [0, Number.MAX_SAFE_INTEGER + 2] }),
  );
  assert.equal(big.status, 422);
  assert.deepEqual((await big.json()).detail[0].loc, ["body", "frozen_regions", 1]);
  const neg = await t.app.request(
    `${BASE}/relabel`,
    jsonBody("POST", { ...settings, max_flips_per_region: -1 }),
  );
  assert.equal(neg.status, 422);
  assert.deepEqual((await neg.json()).detail[0].loc, ["body", "max_flips_per_region"]);
});
