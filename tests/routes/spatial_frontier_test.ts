import assert from "node:assert/strict";
import { storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";

type T = Parameters<Parameters<typeof storeTest>[1]>[0];

/** 20 individuals: region 0 holds 8 positives of 10, region 1 holds 2 of 10 (as spatial_mitigate_test). */
const docs = Array.from({ length: 20 }, (_, i) => ({
  y_pred: i < 10 ? (i < 8 ? 1 : 0) : (i < 12 ? 1 : 0),
  y_true: i % 3 === 0 ? 1 : 0,
  region_ids: [i < 10 ? 0 : 1],
}));

async function setUp(t: T) {
  await t.store.insertMany({ db: t.db, collection: "preds" }, docs);
  const task = { database_name: t.db, data_collection_name: "preds" };
  assert.equal((await t.app.request("/api/tasks/documents", jsonBody("POST", task))).status, 201);
}

const FRONTIER = "/api/spatial-hitl/task/preds/mitigate/relabel/frontier";
const settings = { equal_opp: false, n_worlds: 50 };

storeTest(
  "relabel frontier: ascending budgets, falling objectives, each point a plain relabel and a run",
  async (t) => {
    await setUp(t);
    const res = await t.app.request(
      FRONTIER,
      jsonBody("POST", { ...settings, budgets: [0.3, 0.1, 0.2, 0.1] }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    assert.deepEqual(body.budgets, [0.1, 0.2, 0.3]);
    assert.deepEqual(body.points.map((p: { budget_constr: number }) => p.budget_constr), [0.1, 0.2, 0.3]);
    // P = 10 of N = 20, w = sqrt(10·10/20) = √5 per region; the gap is 2√5·|6 + δ0 - δ1|/10 and C flips
    // (δ0 = -C/2, δ1 = +C/2) close C of the 6: C = 2, 4, 6 give 2√5·0.4, 2√5·0.2 and 0
    const expected = [0.4, 0.2, 0].map((g) => 2 * Math.sqrt(5) * g);
    for (const [i, p] of body.points.entries()) {
      assert.equal(p.solver_status_code, 0);
      assert.ok(Math.abs(p.objective - expected[i]) < 1e-6, `${p.objective} at ${p.budget_constr}`);
      assert.ok(p.bound <= p.objective + 1e-9);
      assert.equal(p.flip_budget, [2, 4, 6][i]);
      assert.equal(p.maps, undefined);
    }
    assert.equal(body.sbi_before > body.points[2].sbi_after, true);
    assert.equal(typeof body.accuracy_before, "number");

    for (const p of body.points) {
      // the same relabel asked alone answers the same point
      const plain = await (await t.app.request(
        "/api/spatial-hitl/task/preds/mitigate/relabel",
        jsonBody("POST", { ...settings, budget_constr: p.budget_constr, include_maps: false }),
      )).json();
      assert.equal(p.objective, plain.objective);
      assert.equal(p.n_flips, plain.n_flips);
      assert.equal(p.sbi_after, plain.audit_after_mitigation.sbi_score);
      assert.equal(p.total_signif_regions_after, plain.audit_after_mitigation.total_signif_regions);
      assert.equal(p.accuracy_after, plain.metrics_after.accuracy);
      // each point is a kept relabel run with its own budget, which write-back accepts
      const run = await (await t.app.request(`/api/spatial-hitl/task/preds/runs/${p.run_id}`)).json();
      assert.equal(run.run.kind, "relabel");
      assert.equal(run.run.request.budget_constr, p.budget_constr);
      assert.equal(run.run.request.budgets, undefined);
      const field = `frontier_${String(p.budget_constr).replace(".", "_")}`;
      const wb = await t.app.request(
        "/api/spatial-hitl/task/preds/mitigate/writeback",
        jsonBody("POST", { new_field: field, run_id: p.run_id }),
      );
      assert.equal(wb.status, 200, await wb.clone().text());
      assert.equal((await wb.json()).matched, 20);
    }
  },
);

storeTest("relabel frontier: include_maps gives each point its maps", async (t) => {
  await setUp(t);
  const res = await t.app.request(
    FRONTIER,
    jsonBody("POST", { ...settings, budgets: [2], include_maps: true }),
  );
  assert.equal(res.status, 200, await res.clone().text());
  const [p] = (await res.json()).points;
  assert.match(p.maps.flips_map_html, /<html/i);
  assert.match(p.maps.audit_after_mitigation.fair_map_html, /<html/i);
});

storeTest("relabel frontier: budgets empty, over 20 or negative is a 422 naming budgets", async (t) => {
  await setUp(t);
  const cases = [
    [],
    Array.from({ length: 21 }, (_, i) => i / 20),
    [0.1, -0.2],
  ];
  for (const budgets of cases) {
    const res = await t.app.request(FRONTIER, jsonBody("POST", { ...settings, budgets }));
    assert.equal(res.status, 422, JSON.stringify(budgets));
    const { detail } = await res.json();
    assert.deepEqual(detail[0].loc.slice(0, 2), ["body", "budgets"]);
  }
  const missing = await t.app.request(FRONTIER, jsonBody("POST", settings));
  assert.equal(missing.status, 422);
  const single = await t.app.request(
    FRONTIER,
    jsonBody("POST", { ...settings, budgets: [0.1], budget_constr: 0.1 }),
  );
  assert.equal(single.status, 422); // budget_constr is the frontier's to set
});

/** The kept runs of a frontier's points, in budget order. */
async function pointRuns(t: T, body: { points: { run_id: string }[] }) {
  return await Promise.all(
    body.points.map(async (p) =>
      await (await t.app.request(`/api/spatial-hitl/task/preds/runs/${p.run_id}`)).json()
    ),
  );
}

const WARM = "the warm start's flips fit and reach 0: optimal as they are";

for (const poolSize of [1, 2]) {
  const workers = poolSize === 1 ? "one worker" : "two workers";
  storeTest(
    `relabel frontier: budgets the largest budget's zero flips fit take its answer (${workers})`,
    async (t) => {
      await setUp(t);
      const res = await t.app.request(
        FRONTIER,
        jsonBody("POST", { ...settings, budgets: [0.3, 0.35, 0.4, 0.5] }),
      );
      assert.equal(res.status, 200, await res.clone().text());
      const runs = await pointRuns(t, await res.json());
      // budget 6 closes the gap of 6 (the first test): every point reaches 0 with the same flips
      for (const run of runs) {
        assert.ok(run.objective < 1e-9, `${run.objective}`);
        assert.deepEqual(run.mitigated_preds, runs[0].mitigated_preds);
      }
      // the largest and the smallest `lag` (one per worker; WORKERS=0 runs every task inline, on one) are
      // solved cold; the others take the largest's answer, which fits them, without a solve
      const lag = Math.min(2, t.pool.size);
      assert.deepEqual(runs.map((r) => r.solver_detail === WARM), [false, lag === 1, true, false]);
      assert.deepEqual(runs.map((r) => r.solver_seconds === 0), [false, lag === 1, true, false]);
      // the same predictions are audited and drawn once, whichever point is solved first
      assert.equal(
        runs.filter((r) => r.phases.maps > 0).length,
        1,
        JSON.stringify(runs.map((r) => r.phases)),
      );
    },
    { poolSize },
  );
}

storeTest(
  "relabel frontier: where the budget binds the same request answers the same flips again",
  async (t) => {
    await setUp(t);
    const body = { ...settings, budgets: [0.05, 0.1, 0.15, 0.2, 0.25, 0.5] };
    const first = await pointRuns(t, await (await t.app.request(FRONTIER, jsonBody("POST", body))).json());
    const again = await pointRuns(t, await (await t.app.request(FRONTIER, jsonBody("POST", body))).json());
    // the gap of 6 closes by C flips of 1 to 5 (C = 1..5) and entirely at 10: 2√5·|6 - C|/10 (first test)
    const expected = [1, 2, 3, 4, 5, 10].map((c) => 2 * Math.sqrt(5) * Math.max(0, 6 - c) / 10);
    for (const [i, run] of first.entries()) {
      assert.ok(
        Math.abs(run.objective - expected[i]) < 1e-6,
        `${run.objective} at ${run.run.request.budget_constr}`,
      );
      assert.deepEqual(again[i].mitigated_preds, run.mitigated_preds);
      assert.equal(again[i].objective, run.objective);
    }
  },
  { poolSize: 2 },
);

storeTest("relabel frontier: exact points are each the exact relabel of their budget", async (t) => {
  await setUp(t);
  const body = { ...settings, approx: false, budgets: [0.1, 0.3, 0.5] };
  const res = await t.app.request(FRONTIER, jsonBody("POST", body));
  assert.equal(res.status, 200, await res.clone().text());
  const points = (await res.json()).points;
  for (const p of points) {
    const plain = await (await t.app.request(
      "/api/spatial-hitl/task/preds/mitigate/relabel",
      jsonBody("POST", { ...settings, approx: false, budget_constr: p.budget_constr, include_maps: false }),
    )).json();
    assert.equal(p.solver_status_code, 0);
    assert.equal(p.objective, plain.objective);
    assert.equal(p.n_flips, plain.n_flips);
  }
  // 3 flips each way put both regions at 5 of 10, the overall rate: every statistic 0 (budgets 6 and 10)
  assert.ok(points[1].objective < 1e-9 && points[2].objective < 1e-9);
  assert.ok(points[0].objective > 0.1); // 2 flips cannot
}, { poolSize: 2 });
