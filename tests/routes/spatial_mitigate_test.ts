import assert from "node:assert/strict";
import { storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";

/** The task document of collection `name` (its rows inserted first), as a pipeline makes it. */
const makeTask = (t: Parameters<Parameters<typeof storeTest>[1]>[0], name: string) =>
  t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: name }),
  );

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
    await makeTask(t, "preds");
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
    // no probability field: flip_order "index". Region 0 flips its first two positives (0, 1) to 0;
    // region 1 its first two negatives (12, 13) to 1; every individual is listed, in collection order
    assert.equal(body.flip_order, "index");
    const flips = new Map([[0, 0], [1, 0], [12, 1], [13, 1]]);
    assert.deepEqual(
      body.mitigated_preds,
      docs.map((d, i) => ({
        idx: i,
        doc_id: ids[i],
        y_pred: flips.get(i) ?? d.y_pred,
        flipped: flips.has(i),
      })),
    );
    assert.deepEqual(body.n_flips_per_region, [
      { idx: 0, region_id: 0, n_flips: 2, n_to_positive: 0, n_to_negative: 2 },
      { idx: 1, region_id: 1, n_flips: 2, n_to_positive: 2, n_to_negative: 0 },
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
    await makeTask(t, "preds");
    const post = (body: unknown) =>
      t.app.request("/api/spatial-hitl/task/preds/mitigate/relabel", jsonBody("POST", body));
    const body = await (await post({ equal_opp: false, n_worlds: 50 })).json();
    assert.equal(body.solver_status_code, 0);
    // Σ w|ρin - ρout| = 2·w·|(8+δ0) - (2+δ1)|/10 with |δ0|+|δ1| ≤ 4: the least gap is 0.2, w = sqrt(10·10/20)
    assert.ok(Math.abs(body.objective - 2 * Math.sqrt(5) * 0.2) < 1e-6);
    // certified: the dual bound meets the objective (the hand optimum) within the gap tolerance
    assert.ok(Math.abs(body.bound - 2 * Math.sqrt(5) * 0.2) < 1e-6 && body.gap <= 1e-6);
    const [r0, r1] = body.audit_after_mitigation.stats.map((s: { rate: number }) => s.rate);
    assert.ok(Math.abs(r0 - r1) <= 0.2 + 1e-9);
    assert.ok(body.n_flips <= 4);

    const none = await (await post({ equal_opp: false, n_worlds: 50, budget_constr: 0, approx: false }))
      .json();
    assert.equal(none.n_flips, 0);
    assert.equal(none.mitigated_preds.length, 20);
    assert.ok(none.mitigated_preds.every((p: { flipped: boolean }) => !p.flipped));

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
    await makeTask(t, "loans");
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
    assert.equal(body.flip_order, null);
    // every region's line names its id, as the audits' stats do (grid cells: id = idx here)
    const statId = new Map(
      body.audit_before_mitigation.stats.map((s: { idx: number; region_id: number }) => [s.idx, s.region_id]),
    );
    body.new_thresholds.forEach((t: { idx: number; region_id: number }, r: number) => {
      assert.equal(t.idx, r);
      assert.equal(t.region_id, statId.get(r));
    });
    // the test part's flips per region, counted from the rows' own region_ids
    const perRegion = new Map<number, [number, number]>();
    for (const f of body.mitigated_preds.filter((f: { flipped: boolean }) => f.flipped)) {
      for (const id of rows[f.idx].region_ids as number[]) {
        const c = perRegion.get(id) ?? [0, 0];
        c[f.y_pred ? 0 : 1]++;
        perRegion.set(id, c);
      }
    }
    for (const r of body.n_flips_per_region) {
      const [up, down] = perRegion.get(r.region_id) ?? [0, 0];
      assert.deepEqual([r.n_to_positive, r.n_to_negative, r.n_flips], [up, down, up + down]);
    }
    const idxs = body.mitigated_preds.map((f: { idx: number }) => f.idx);
    assert.deepEqual(idxs, [...idxs].sort((a: number, b: number) => a - b));
    assert.equal(body.mitigated_preds.length, body.test_size);
    for (const f of body.mitigated_preds) assert.equal(f.flipped, f.y_pred !== rows[f.idx].y_pred);
    const again = await (await post({ n_worlds: 100, equal_opp: false })).json();
    assert.deepEqual(again.new_thresholds, body.new_thresholds);
    assert.deepEqual(again.mitigated_preds, body.mitigated_preds);

    const noProb = await post({ mapping: { y_pred_prob: "nothing_here" } });
    assert.equal(noProb.status, 409);
    assert.deepEqual((await noProb.json()).detail[0].loc, ["body", "mapping", "y_pred_prob"]);
    const ratio = await post({ train_ratio: 1 });
    assert.deepEqual((await ratio.json()).detail[0].loc, ["body", "train_ratio"]);
  },
);

storeTest(
  "relabel exact at its limit: 200 with status 1, the best found (within budget and window) and a bound",
  async (t) => {
    // 3,000 individuals, each in 2 to 6 of 30 overlapping regions drawn with a fixed LCG: thousands of
    // distinct region sets, far beyond what the depth-first branch and bound finishes in 1 s. With the
    // default budget the local search's incumbent now meets the bound B(P') (status 0, proven); 60 flips
    // cannot put every region at its best count, so the bound stays below the incumbent
    // (docs/spatial-fairness.md, "Where the budget binds")
    let s = 12345;
    const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
    const docs = Array.from({ length: 3000 }, (_, i) => {
      const regions = new Set<number>();
      while (regions.size < 2 + (i % 5)) regions.add(Math.floor(next() * 30));
      const biased = [...regions].some((r) => r < 5); // regions 0-4 lean positive
      return { y_pred: next() < (biased ? 0.7 : 0.3) ? 1 : 0, region_ids: [...regions] };
    });
    await t.store.insertMany({ db: t.db, collection: "big" }, docs);
    await makeTask(t, "big");
    const res = await t.app.request(
      "/api/spatial-hitl/task/big/mitigate/relabel",
      jsonBody("POST", { equal_opp: false, approx: false, work_limit: 1, n_worlds: 20, budget_constr: 0.02 }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    assert.equal(body.solver_status_code, 1);
    assert.equal(body.solver_status_message, "limit reached with a solution");
    assert.match(body.solver_detail, /work limit of 1 s/);
    assert.ok(body.bound <= body.objective);
    // C = floor(0.02·3000) = 60; the window is [ceil(0.9·P), floor(1.1·P)] within [P - C, P + C]
    const P = docs.reduce((a, d) => a + d.y_pred, 0);
    assert.equal(body.flip_budget, 60);
    assert.deepEqual(body.new_positives_window, [
      Math.max(Math.ceil(0.9 * P), P - 60),
      Math.min(Math.floor(1.1 * P), P + 60),
    ]);
    assert.ok(body.n_flips <= 60);
    const changed = body.mitigated_preds.filter((f: { flipped: boolean }) => f.flipped);
    assert.equal(changed.length, body.n_flips);
    const newP = P + changed.reduce((a: number, f: { y_pred: number }) => a + (f.y_pred ? 1 : -1), 0);
    assert.ok(newP >= body.new_positives_window[0] && newP <= body.new_positives_window[1]);
    assert.equal(body.positive_rate_after, newP / 3000);
  },
);

/** The 20 individuals above with a probability: the least certain of each group are not the first. */
const withProb = docs.map((d, i) => ({
  ...d,
  y_pred_prob: [
    ...[0.9, 0.85, 0.8, 0.75, 0.7, 0.55, 0.95, 0.6, 0.3, 0.2], // region 0: positives 0-7, negatives 8, 9
    ...[0.7, 0.8, 0.1, 0.2, 0.3, 0.45, 0.15, 0.25, 0.05, 0.4], // region 1: positives 10, 11, negatives 12-19
  ][i],
}));

/** Counts of flips per region from the listed final predictions and the documents' region_ids. */
function flipsPerRegion(
  preds: { idx: number; y_pred: number; flipped: boolean }[],
  rows: { region_ids: number[] }[],
) {
  const out = new Map<number, { up: number; down: number }>();
  for (const p of preds.filter((p) => p.flipped)) {
    for (const id of rows[p.idx].region_ids) {
      const c = out.get(id) ?? { up: 0, down: 0 };
      p.y_pred ? c.up++ : c.down++;
      out.set(id, c);
    }
  }
  return out;
}

storeTest(
  "relabel flip_order: uncertainty by default with a probability field, index and seeded random on request",
  async (t) => {
    const ids = await t.store.insertMany({ db: t.db, collection: "preds" }, withProb);
    await makeTask(t, "preds");
    const post = async (extra: Record<string, unknown>) => {
      const res = await t.app.request(
        "/api/spatial-hitl/task/preds/mitigate/relabel",
        jsonBody("POST", { equal_opp: false, approx: false, n_worlds: 50, ...extra }),
      );
      assert.equal(res.status, 200, await res.clone().text());
      return await res.json();
    };
    const flippedOf = (b: { mitigated_preds: { idx: number; flipped: boolean }[] }) =>
      b.mitigated_preds.filter((p) => p.flipped).map((p) => p.idx);
    const unc = await post({});
    // the hand-checked optimum δ = (-2, +2) (first test) whatever the order; region 0's two positives
    // with the lowest probability are 5 (0.55) and 7 (0.6), region 1's two negatives with the highest
    // are 15 (0.45) and 19 (0.4)
    assert.equal(unc.flip_order, "uncertainty");
    assert.deepEqual(flippedOf(unc), [5, 7, 15, 19]);
    assert.deepEqual(unc.mitigated_preds.map((p: { doc_id: string }) => p.doc_id), ids);
    const index = await post({ flip_order: "index" });
    assert.equal(index.flip_order, "index");
    assert.deepEqual(flippedOf(index), [0, 1, 12, 13]);
    const random = await post({ flip_order: "random", seed: 7 });
    assert.deepEqual(flippedOf(await post({ flip_order: "random", seed: 7 })), flippedOf(random));
    for (const b of [unc, index, random]) {
      // what does not depend on the order
      assert.equal(b.objective, unc.objective);
      assert.equal(b.solver_status_code, 0);
      assert.deepEqual(b.regions_delta, unc.regions_delta);
      assert.deepEqual(b.n_flips_per_region, index.n_flips_per_region);
      assert.equal(b.n_flips, 4);
      assert.equal(b.mitigated_preds.length, 20);
      // the listed flips per region are the solution's: |δ| of the region, in its direction
      const counted = flipsPerRegion(b.mitigated_preds, withProb);
      for (const r of b.n_flips_per_region) {
        const c = counted.get(r.region_id) ?? { up: 0, down: 0 };
        assert.deepEqual([r.n_to_positive, r.n_to_negative], [c.up, c.down]);
        assert.equal(c.up - c.down, b.regions_delta[r.idx].delta);
      }
      for (const p of b.mitigated_preds) {
        assert.equal(p.flipped, p.y_pred !== withProb[p.idx].y_pred);
      }
    }
    // random flips within the groups the solution fixed: 2 positives of region 0, 2 negatives of region 1
    const r = flippedOf(random);
    assert.equal(r.filter((i: number) => i < 8).length, 2);
    assert.equal(r.filter((i: number) => i >= 12).length, 2);
  },
);

storeTest(
  "relabel under equal opportunity lists every individual; those out of scope (y_true = 0) never flip",
  async (t) => {
    await t.store.insertMany({ db: t.db, collection: "preds" }, withProb);
    await makeTask(t, "preds");
    const res = await t.app.request(
      "/api/spatial-hitl/task/preds/mitigate/relabel",
      jsonBody("POST", { equal_opp: true, approx: false, n_worlds: 50, budget_constr: 2, pr_constr: 1 }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const body = await res.json();
    assert.deepEqual(body.mitigated_preds.map((p: { idx: number }) => p.idx), docs.map((_, i) => i));
    // in scope: y_true = 1 at 0, 3, 6, 9, 12, 15, 18
    for (const p of body.mitigated_preds) {
      if (withProb[p.idx].y_true === 0) assert.ok(!p.flipped && p.y_pred === withProb[p.idx].y_pred);
    }
    const flipped = body.mitigated_preds.filter((p: { flipped: boolean }) => p.flipped);
    assert.equal(flipped.length, body.n_flips);
    assert.ok(body.n_flips > 0 && body.n_flips <= 2);
    const counted = flipsPerRegion(body.mitigated_preds, withProb);
    for (const r of body.n_flips_per_region) {
      const c = counted.get(r.region_id) ?? { up: 0, down: 0 };
      assert.deepEqual([r.n_to_positive, r.n_to_negative], [c.up, c.down]);
    }
  },
);

storeTest(
  "flip_order: uncertainty without a probability field, an unknown order, or on threshold: 422",
  async (t) => {
    await t.store.insertMany({ db: t.db, collection: "preds" }, docs);
    await t.store.insertMany({ db: t.db, collection: "probs" }, withProb);
    for (const c of ["preds", "probs"]) {
      await makeTask(t, c);
    }
    const post = (c: string, op: string, body: unknown) =>
      t.app.request(`/api/spatial-hitl/task/${c}/mitigate/${op}`, jsonBody("POST", body));
    const none = await post("preds", "relabel", { equal_opp: false, flip_order: "uncertainty" });
    assert.equal(none.status, 409);
    const detail = (await none.json()).detail[0];
    assert.deepEqual(detail.loc, ["body", "flip_order"]);
    assert.match(detail.msg, /y_pred_prob/);
    const unknown = await post("probs", "relabel", { equal_opp: false, flip_order: "closest" });
    assert.equal(unknown.status, 422);
    assert.deepEqual((await unknown.json()).detail[0].loc, ["body", "flip_order"]);
    const threshold = await post("probs", "threshold", { equal_opp: false, flip_order: "index" });
    assert.equal(threshold.status, 422);
  },
);

storeTest(
  "threshold: a training part with nobody in scope is a 422 naming train_ratio, once the work beside the solver ends",
  async (t) => {
    // one individual with y_true = 1: stratified at 0.4 it goes to the test part (round(0.4) = 0), so the
    // test part's audit and maps start beside the solver, whose worker then finds no one to fit on
    const one = withProb.map((d, i) => ({ ...d, y_true: i === 3 ? 1 : 0 }));
    await t.store.insertMany({ db: t.db, collection: "onepos" }, one);
    await makeTask(t, "onepos");
    const res = await t.app.request(
      "/api/spatial-hitl/task/onepos/mitigate/threshold",
      jsonBody("POST", { equal_opp: true, train_ratio: 0.4, stratified: true, n_worlds: 50 }),
    );
    assert.equal(res.status, 409, await res.clone().text());
    const detail = (await res.json()).detail[0];
    assert.deepEqual(detail.loc, ["body", "train_ratio"]);
    assert.match(detail.msg, /no individuals in scope in the training part/);
  },
);

storeTest("threshold: a region id beyond the polygon list is a 422 naming the document", async (t) => {
  const rows = withProb.map((d, i) => (i === 13 ? { ...d, region_ids: [1, 4] } : d));
  const ids = await t.store.insertMany({ db: t.db, collection: "beyond" }, rows);
  await makeTask(t, "beyond");
  const square = [[0, 0], [1, 0], [1, 1], [0, 1]];
  const res = await t.app.request(
    "/api/spatial-hitl/task/beyond/mitigate/threshold",
    jsonBody("POST", { equal_opp: false, n_worlds: 20, region: [{ polygon: square }, { polygon: square }] }),
  );
  assert.equal(res.status, 409, await res.clone().text());
  const detail = (await res.json()).detail[0];
  assert.deepEqual(detail.loc, ["body", "region"]);
  assert.equal(
    detail.msg,
    `region id 4 of document ${ids[13]} (position 13) is beyond the polygon list (2 polygons, ids 0..1)`,
  );
});
