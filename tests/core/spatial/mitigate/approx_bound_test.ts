/**
 * PROMIS-Approx's certificate (approx_bound.ts) and its column generation (approx_columns.ts).
 *
 * Reference objectives come from tests/core/spatial/mitigate/approx_bound_ref.py, an independent model in
 * the documentation's per-individual form (one δ_j per individual, D integer) solved by scipy's HiGHS MILP:
 *
 *   pip install scipy   # 1.17.1
 *   echo '[{"name":"fourteen-C1","labels":[1,1,1,1,0,0,1,0,0,0,1,0,0,1],
 *           "regions":[[0,1,2,3,4,5],[2,3,4,5,6,7,8],[8,9,10,11],[0,5,9,12,13]],"C":1,"dlo":-1,"dhi":1}, ...]' \
 *     | python3 tests/core/spatial/mitigate/approx_bound_ref.py
 *   fourteen-C1 (0.7337140595963557, D = -1.0)
 *   fourteen-C1-fixed (0.8330960935010661, D = 0.0)       same, "dlo":0,"dhi":0
 *   fourteen-twin (0.9651690845394933, D = -1.0)          fourteen-C1 with region 0 listed twice
 *   ten-tight (0.3227486121839514, D = 0.0)               labels [1,1,1,0,0,0,1,0,1,0], regions
 *                                                          [[0,1,2,3,4],[3,4,5,6],[0,6,7,8,9]], C 1, D 0
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { approxModel, solveApprox } from "../../../../core/spatial/mitigate/approx.ts";
import {
  approxDualBound,
  approxObjective,
  approxRows,
} from "../../../../core/spatial/mitigate/approx_bound.ts";
import { solveSparse } from "../../../../core/spatial/mitigate/highs.ts";
import { buildProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { GAP_TOLERANCE, relativeGap } from "../../../../core/spatial/mitigate/status.ts";
import { larLikeProblem } from "../../../../bench/lar_like_problem.ts";
import { solveZeroGap } from "../../../../core/spatial/mitigate/zero_gap.ts";
import { regionsOf } from "./fixtures.ts";
import { FOURTEEN, problems, TEN } from "./approx_fixtures.ts";

Deno.test("approx: optimal objectives and bounds agree with scipy's MILP on the per-individual model", async () => {
  // budget 1/N gives C = 1; pr_constr 0.2 of P = 6 gives D ∈ [-1, 1], 0 gives D = 0
  const cases: [typeof FOURTEEN, number, number, number][] = [
    [FOURTEEN, 1 / 14, 0.2, 0.7337140595963557],
    [FOURTEEN, 1 / 14, 0, 0.8330960935010661],
    [TEN, 0.1, 0, 0.3227486121839514],
  ];
  for (const [inst, budget, prTol, want] of cases) {
    const pr = buildProblem(inst.labels, inst.regions, { budget, prTol });
    const r = await solveApprox(pr, 10);
    assert.equal(r.status.code, 0, r.status.detail);
    assert.ok(Math.abs(r.objective! - want) <= 1e-9, `${r.objective} vs ${want}`);
    assert.ok(r.bound! <= r.objective! + 1e-12 && relativeGap(r.objective!, r.bound!) <= GAP_TOLERANCE);
    assert.ok(Math.abs(approxObjective(approxRows(pr), r.unitDelta!) - want) <= 1e-9);
  }
});

Deno.test("approx: regions with the same members are one row of their summed weight, the optimum unchanged", async () => {
  const members = [[0, 1, 2, 3, 4, 5], [2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3, 4, 5], [8, 9, 10, 11], [
    0,
    5,
    9,
    12,
    13,
  ]];
  const pr = buildProblem(FOURTEEN.labels, regionsOf(members), { budget: 1 / 14, prTol: 0.2 });
  const rows = approxRows(pr);
  assert.deepEqual([...rows.rowOf], [0, 1, 0, 2, 3]);
  assert.equal(rows.kappa[0], 2 * Math.sqrt(14 / (6 * 8)));
  const r = await solveApprox(pr, 10);
  assert.equal(r.status.code, 0, r.status.detail);
  assert.ok(Math.abs(r.objective! - 0.9651690845394933) <= 1e-9, `${r.objective}`);
});

Deno.test("approx bound by hand: y = 0 bounds by 0; multipliers of a lone region by hand", () => {
  // one region {0, 1} of N = 4, labels 1,1,0,0: P = 2, b = n P/N - p = 1 - 2 = -1, κ = sqrt(4/(2·2)) = 1
  const pr = buildProblem(Uint8Array.from([1, 1, 0, 0]), regionsOf([[0, 1]]), { budget: 1, prTol: 0 });
  const rows = approxRows(pr);
  assert.deepEqual([...rows.kappa, ...rows.alpha, ...rows.rhs], [1, 0.5, -1]);
  assert.equal(approxDualBound(pr, rows, { y: Float64Array.of(0), lambda: 0, mu: 0 }), 0);
  // regions are disjoint, so the one unit is the region's positives (down, count 2). y = -1: b·y = 1, the
  // unit's d = -(-1) = 1 > 0 adds -2·1, D fixed at 0 (pr_constr 0) adds nothing: g = -1. With λ = -1
  // (budget C = 4): C·λ = -4, the unit's d = 1 - (-1)(-1) = 0 adds 0: g = 1 - 4 = -3
  assert.equal(approxDualBound(pr, rows, { y: Float64Array.of(-1), lambda: 0, mu: 0 }), 1 - 2);
  assert.equal(approxDualBound(pr, rows, { y: Float64Array.of(-1), lambda: -1, mu: 0 }), 1 - 4);
  // objectives: no flip leaves |b| = 1; one positive down (D = -1) leaves |-1 - 0.5·(-1) + 1| = 0.5
  assert.equal(approxObjective(rows, Float64Array.of(0)), 1);
  assert.equal(approxObjective(rows, Float64Array.of(-1)), 0.5);
});

Deno.test("approx bound: every feasible point's objective is at least the bound of any multipliers", () => {
  fc.assert(
    fc.property(
      problems,
      fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 8, maxLength: 8 }),
      fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 64, maxLength: 64 }),
      (pr, ys, fractions) => {
        const rows = approxRows(pr), T = rows.kappa.length, U = pr.unitSign.length;
        // a feasible point: a fraction of each unit, scaled into the budget, kept only inside the window
        const x = Float64Array.from(
          { length: U },
          (_, u) => pr.unitSign[u] * pr.unitCount[u] * fractions[u % 64],
        );
        const used = x.reduce((s, v) => s + Math.abs(v), 0);
        if (used > pr.C) x.forEach((v, u) => (x[u] = (v * pr.C) / used));
        const D = x.reduce((s, v) => s + v, 0);
        fc.pre(D >= pr.dMin - 1e-12 && D <= pr.dMax + 1e-12);
        const y = Float64Array.from({ length: T }, (_, i) => ys[i % 8]);
        const bound = approxDualBound(pr, rows, { y, lambda: ys[6], mu: ys[7] });
        assert.ok(approxObjective(rows, x) >= bound - 1e-9);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("approx: column generation reaches the whole model's optimum (HiGHS), certified", async () => {
  await fc.assert(
    fc.asyncProperty(problems, async (pr) => {
      fc.pre(pr.dMin <= pr.dMax);
      const whole = await solveSparse(approxModel(pr), 10), r = await solveApprox(pr, 10);
      assert.equal(whole.status.code, 0);
      assert.equal(r.status.code, 0, r.status.detail);
      assert.ok(Math.abs(r.objective! - whole.objective!) <= 1e-7 * Math.max(1, whole.objective!));
      assert.ok(r.bound! <= whole.objective! + 1e-7 && relativeGap(r.objective!, r.bound!) <= GAP_TOLERANCE);
    }),
    { numRuns: 60 },
  );
});

Deno.test("approx: on a scan design of 900 nested squares column generation matches the whole model", async () => {
  // 30,000 individuals, 6,567 units in ~50 squares each (323k nonzeros): past the whole-model size
  const pr = larLikeProblem({ n: 30_000, regions: 900, seed: 7, equalOpp: false, budget: 0.01 });
  const whole = await solveSparse(approxModel(pr), 60), r = await solveApprox(pr, 60);
  assert.equal(whole.status.code, 0);
  assert.equal(r.status.code, 0, r.status.detail);
  assert.ok(Math.abs(r.objective! - whole.objective!) <= 1e-6 * Math.max(1, whole.objective!));
  // the masters held unit columns (not the zero-gap path), their rows as differences along the squares
  assert.ok(r.columns > 0 && r.columns <= pr.unitSign.length, `${r.columns} of ${pr.unitSign.length}`);
});

Deno.test("approx: where the budget binds, the interior point's first master reaches the whole model's optimum", async () => {
  // budget 100 of 30,000: the least-squares flips exceed it, so the interior point's units start the first
  // master, with a basis from HiGHS's crossover
  for (const equalOpp of [false, true]) {
    const pr = larLikeProblem({ n: 30_000, regions: 900, seed: 7, equalOpp, budget: 100 });
    const over: { x: Float64Array | null } = { x: null };
    assert.equal(solveZeroGap(pr, approxRows(pr), performance.now() + 60_000, over), null);
    assert.ok(over.x && over.x.reduce((s, v) => s + Math.abs(v), 0) > pr.C, "least squares over the budget");
    const whole = await solveSparse(approxModel(pr), 60), r = await solveApprox(pr, 60);
    assert.equal(whole.status.code, 0);
    assert.equal(r.status.code, 0, r.status.detail);
    assert.ok(Math.abs(r.objective! - whole.objective!) <= 1e-6 * Math.max(1, whole.objective!));
    assert.ok(r.bound! <= whole.objective! + 1e-7 && relativeGap(r.objective!, r.bound!) <= GAP_TOLERANCE);
    // SP's 6,567 units hold 314k nonzeros, past the whole-model size; EO's 4,044 (188k) go to HiGHS whole
    if (!equalOpp) {
      assert.match(
        r.status.detail,
        /first master from Tessera's interior point \(\d+ steps, HiGHS's crossover from it\)/,
      );
    }
  }
});

Deno.test("approx: with newP fixed (no interior to D's window) the least-squares start reaches the optimum", async () => {
  // pr_constr 0: D = 0, so the interior point has no box to start inside; least squares' units seed instead
  // (statistical parity: past the whole-model size, so column generation)
  const pr = larLikeProblem({ n: 30_000, regions: 900, seed: 7, equalOpp: false, budget: 100, prTol: 0 });
  assert.equal(pr.dMin, 0);
  assert.equal(pr.dMax, 0);
  const whole = await solveSparse(approxModel(pr), 60), r = await solveApprox(pr, 60);
  assert.equal(whole.status.code, 0);
  assert.equal(r.status.code, 0, r.status.detail);
  assert.ok(Math.abs(r.objective! - whole.objective!) <= 1e-6 * Math.max(1, whole.objective!));
  assert.doesNotMatch(r.status.detail, /interior point/);
});
