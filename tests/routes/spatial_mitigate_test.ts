import assert from "node:assert/strict";
import { storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";

/** 20 individuals: region 0 holds 8 positives of 10 (positions 0-7), region 1 holds 2 of 10 (10, 11). */
const docs = Array.from({ length: 20 }, (_, i) => ({
  y_pred: i < 10 ? (i < 8 ? 1 : 0) : (i < 12 ? 1 : 0),
  y_true: i % 3 === 0 ? 1 : 0,
  region_ids: [i < 10 ? 0 : 1],
}));

storeTest(
  "relabel exact: the hand-checked optimum, flips of the first members, both audits and maps",
  async (t) => {
    const ids = await t.store.insertMany({ db: t.db, collection: "preds" }, docs);
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "preds" }),
    );
    const res = await t.app.request(
      "/api/spatial-hitl/task/preds/mitigate/relabel",
      jsonBody("POST", { equal_opp: false, approx: false, n_worlds: 100 }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    // C = floor(0.2·20) = 4 flips, newP in [9, 11]. Brute force over every integer (δ0, δ1) with
    // |δ0| + |δ1| ≤ 4 (python, L(k,m) = k ln(k/m) + (m-k) ln(1-k/m)): Σ_i (l1_i - l0) is least,
    // 0.8054205420275551, at δ = (-2, +2); the next best is 1.8480 at (-2, +1).
    assert.equal(body.solver_status_code, 0);
    assert.equal(body.solver_status_message, "optimal");
    assert.ok(Math.abs(body.objective - 0.8054205420275551) < 1e-9);
    assert.deepEqual(body.regions_delta.map((r: { delta: number }) => r.delta), [-2, 2]);
    assert.equal(body.n_flips, 4);
    // region 0 flips its first two positives (0, 1) to 0; region 1 its first two negatives (12, 13) to 1
    assert.deepEqual(body.mitigated_preds, [
      { idx: 0, doc_id: ids[0], y_pred: 0 },
      { idx: 1, doc_id: ids[1], y_pred: 0 },
      { idx: 12, doc_id: ids[12], y_pred: 1 },
      { idx: 13, doc_id: ids[13], y_pred: 1 },
    ]);
    assert.equal(body.positive_rate_before, 0.5);
    assert.equal(body.positive_rate_after, 0.5);
    assert.deepEqual(body.audit_after_mitigation.stats.map((s: { p: number }) => s.p), [6, 4]);
    assert.ok(body.audit_after_mitigation.sbi_score < body.audit_before_mitigation.sbi_score);
    // y_true = 1 at 0, 3, 6, 9, 12, 15, 18: before tp = 3 (0, 3, 6), fp = 7 (1, 2, 4, 5, 7, 10, 11)
    assert.equal(body.metrics_before.tp, 3);
    assert.equal(body.metrics_before.fp, 7);
    assert.equal(body.metrics_after.tp, 3); // loses 0, gains 12
    assert.match(body.flips_map_html, /<html/i);
    assert.ok(body.flips_map_image.length > 100);
    const task = await (await t.app.request("/api/tasks/document/preds")).json();
    assert.equal(task.last_mitigation.kind, "relabel");
  },
);

storeTest(
  "relabel approx: the LP reaches the same rate gap; an impossible window is a status, not a 500",
  async (t) => {
    await t.store.insertMany({ db: t.db, collection: "preds" }, docs);
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "preds" }),
    );
    const post = (body: unknown) =>
      t.app.request("/api/spatial-hitl/task/preds/mitigate/relabel", jsonBody("POST", body));
    const body = await (await post({ equal_opp: false, n_worlds: 50 })).json();
    assert.ok([0, 1].includes(body.solver_status_code));
    // Σ w|ρin - ρout| = 2·w·|(8+δ0) - (2+δ1)|/10 with |δ0|+|δ1| ≤ 4: the least gap is 0.2, w = sqrt(10·10/20)
    assert.ok(Math.abs(body.objective - 2 * Math.sqrt(5) * 0.2) < 1e-6);
    const [r0, r1] = body.audit_after_mitigation.stats.map((s: { rate: number }) => s.rate);
    assert.ok(Math.abs(r0 - r1) <= 0.2 + 1e-9);
    assert.ok(body.n_flips <= 4);

    const none = await (await post({ equal_opp: false, n_worlds: 50, budget_constr: 0, approx: false }))
      .json();
    assert.equal(none.n_flips, 0);
    assert.deepEqual(none.mitigated_preds, []);

    const bad = await post({ equal_opp: false, pr_constr: 2 });
    assert.equal(bad.status, 422);
    assert.deepEqual((await bad.json()).detail[0].loc, ["body", "pr_constr"]);
  },
);

storeTest(
  "threshold: per-region thresholds fitted on the train part, flips only in the test part",
  async (t) => {
    const { spatialDemo, SPATIAL_DEMO } = await import("../../core/demo/datasets.ts");
    const rows = [...spatialDemo({ ...SPATIAL_DEMO, n: 3000 })];
    await t.store.insertMany({ db: t.db, collection: "loans" }, rows);
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "loans" }),
    );
    const post = (body: unknown) =>
      t.app.request("/api/spatial-hitl/task/loans/mitigate/threshold", jsonBody("POST", body));
    const res = await post({ n_worlds: 100, equal_opp: false });
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    assert.equal(body.train_size, 2100); // 0.7 · 3000
    assert.equal(body.test_size, 900);
    assert.equal(body.flip_budget, 420); // floor(0.2 · 2100): the fit's budget, over the training part
    assert.equal(body.new_thresholds.length, 25);
    assert.equal(body.audit_before_mitigation.n_individuals, 900);
    assert.ok([0, 1].includes(body.solver_status_code));
    // the biased cells (model pushed down) get thresholds below t0 = 0.5, so more of them pass
    for (const cell of SPATIAL_DEMO.biased) assert.ok(body.new_thresholds[cell].threshold < 0.5);
    assert.ok(body.threshold_chart_before.length > 100 && body.threshold_chart_after.length > 100);
    for (const f of body.mitigated_preds) assert.notEqual(f.y_pred, rows[f.idx].y_pred);
    const again = await (await post({ n_worlds: 100, equal_opp: false })).json();
    assert.deepEqual(again.new_thresholds, body.new_thresholds);
    assert.deepEqual(again.mitigated_preds, body.mitigated_preds);

    const noProb = await post({ mapping: { y_pred_prob: "nothing_here" } });
    assert.equal(noProb.status, 422);
    assert.deepEqual((await noProb.json()).detail[0].loc, ["body", "mapping", "y_pred_prob"]);
    const ratio = await post({ train_ratio: 1 });
    assert.deepEqual((await ratio.json()).detail[0].loc, ["body", "train_ratio"]);
  },
);

storeTest(
  "relabel exact at its limit: 200 with status 1, the best found (within budget and window) and a bound",
  async (t) => {
    // 3,000 individuals, each in 2 to 6 of 30 overlapping regions drawn with a fixed LCG: thousands of
    // distinct region sets, far beyond what the depth-first branch and bound finishes in 1 s
    let s = 12345;
    const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const docs = Array.from({ length: 3000 }, (_, i) => {
      const regions = new Set<number>();
      while (regions.size < 2 + (i % 5)) regions.add(Math.floor(next() * 30));
      const biased = [...regions].some((r) => r < 5); // regions 0-4 lean positive
      return { y_pred: next() < (biased ? 0.7 : 0.3) ? 1 : 0, region_ids: [...regions] };
    });
    await t.store.insertMany({ db: t.db, collection: "big" }, docs);
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { database_name: t.db, data_collection_name: "big" }),
    );
    const res = await t.app.request(
      "/api/spatial-hitl/task/big/mitigate/relabel",
      jsonBody("POST", { equal_opp: false, approx: false, work_limit: 1, n_worlds: 20 }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    assert.equal(body.solver_status_code, 1);
    assert.equal(body.solver_status_message, "limit reached with a solution");
    assert.match(body.solver_detail, /work limit of 1 s/);
    assert.ok(body.bound <= body.objective);
    // C = floor(0.2·3000) = 600; the window is [ceil(0.9·P), floor(1.1·P)]
    const P = docs.reduce((a, d) => a + d.y_pred, 0);
    assert.equal(body.flip_budget, 600);
    assert.deepEqual(body.new_positives_window, [Math.ceil(0.9 * P), Math.floor(1.1 * P)]);
    assert.ok(body.n_flips <= 600);
    assert.equal(body.mitigated_preds.length, body.n_flips);
    const newP = P +
      body.mitigated_preds.reduce((a: number, f: { y_pred: number }) => a + (f.y_pred ? 1 : -1), 0);
    assert.ok(newP >= body.new_positives_window[0] && newP <= body.new_positives_window[1]);
    assert.equal(body.positive_rate_after, newP / 3000);
  },
);
