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

storeTest(
  "relabel frontier: a point whose predecessor's flips reach 0 keeps them (warm start)",
  async (t) => {
    await setUp(t);
    const res = await t.app.request(FRONTIER, jsonBody("POST", { ...settings, budgets: [0.3, 0.5] }));
    assert.equal(res.status, 200, await res.clone().text());
    const [a, b] = (await res.json()).points;
    // budget 6 already closes the gap of 6 (see the first test): 10 flips can do no better than 0
    assert.ok(a.objective < 1e-9 && b.objective < 1e-9, `${a.objective}, ${b.objective}`);
    assert.equal(b.n_flips, a.n_flips);
    const run = await (await t.app.request(`/api/spatial-hitl/task/preds/runs/${b.run_id}`)).json();
    assert.equal(run.solver_detail, "the warm start's flips fit and reach 0: optimal as they are");
    const first = await (await t.app.request(`/api/spatial-hitl/task/preds/runs/${a.run_id}`)).json();
    assert.notEqual(first.solver_detail, run.solver_detail); // the first point solved cold
    // the same flips, so the same predictions: the audit after and its maps are the first point's, not drawn again
    assert.ok(first.phases.maps > 0, JSON.stringify(first.phases));
    assert.equal(run.phases.maps, 0);
    assert.equal(run.audit_after_mitigation.sbi_score, first.audit_after_mitigation.sbi_score);
    assert.deepEqual(run.mitigated_preds, first.mitigated_preds);
  },
);
