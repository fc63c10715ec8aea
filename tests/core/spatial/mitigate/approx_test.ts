/**
 * PROMIS-Approx against an independent solution of the same instances. The reference values come
 * from Python written in the model's own form (docs/spatial-fairness.md) (rates ρin/ρout and weights w_i, one variable
 * per individual, |x| by two inequalities, newP integer), solved by two solvers:
 *
 *   # pip install scipy pulp   (scipy 1.17.1, PuLP 3 with CBC)
 *   prob += t[i] >= rin - rout;  prob += t[i] >= rout - rin      # rin = (p+Σd)/n, rout = (newP-p-Σd)/(N-n)
 *   prob += u[j] >= d[j];  prob += u[j] >= -d[j];  Σu ≤ C;  newP == P + Σd;  newP integer in [lo, hi]
 *   minimise Σ sqrt(n(N-n)/N)·t[i]
 *   D1 → CBC 1.4203623173318096, scipy.optimize.milp 1.4203623026825758 (newP = 20)
 *   O1 → CBC 0.8742151775501099, scipy.optimize.milp 0.8742151783639327 (newP = 6)
 * (the full script is tests/core/spatial/mitigate/approx_ref.py). Our model is written in counts with
 * per-unit variables, so agreement checks the reformulation as well as the solve.
 * The script also lets D1's 10 individuals in no region flip, which the disjoint model (one δ
 * per region, newP = P + Σ_i δ_i) does not; the optimum is the same one, by hand: with gaps
 * (p_i + δ_i) - n_i·newP/N = 3 + δ0 - 0.3D, -3 + δ1 - 0.25D, δ2 - 0.2D (D = Σδ) and κ_i =
 * sqrt(N/(n_i(N-n_i))), (δ0, δ1, δ2) = (-1, +1, 0) costs 2κ0 + 2κ1 = 1.4203623..., which the LP with
 * the extra variables cannot beat, and it uses no individual outside a region.
 */
import assert from "node:assert/strict";
import { approxModel, solveApprox } from "../../../../core/spatial/mitigate/approx.ts";
import { solveApproxByColumns } from "../../../../core/spatial/mitigate/approx_columns.ts";
import { solveSparse } from "../../../../core/spatial/mitigate/highs.ts";
import { buildProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { relabel, solveProblem } from "../../../../core/spatial/mitigate/relabel.ts";
import { groupsOf } from "../../../../core/spatial/mitigate/exact_fixed_rate.ts";
import { solveExactDisjoint } from "../../../../core/spatial/mitigate/exact_disjoint.ts";
import { xlogxTable } from "../../../../core/spatial/statistic.ts";
import { overlappingInstance } from "../../../../bench/mitigate_fixtures.ts";
import { close, regionsOf } from "./fixtures.ts";

const range = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);
const ones = (k: number, n: number) => [...Array(k).fill(1), ...Array(n - k).fill(0)];

/** D1: regions of 12 (9 positive), 10 (2), 8 (4), and 10 individuals in no region (5); P = 20 of 40. */
const D1 = {
  labels: Uint8Array.from([...ones(9, 12), ...ones(2, 10), ...ones(4, 8), ...ones(5, 10)]),
  regions: regionsOf([range(0, 12), range(12, 22), range(22, 30)]),
  budget: 0.05, // C = 2
  prTol: 0.1, // newP ∈ [18, 22]
};
/** O1: 12 individuals, three overlapping regions, two in none; P = 6. */
const O1 = {
  labels: Uint8Array.from([1, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 1]),
  regions: regionsOf([[0, 1, 2, 3, 4, 5], [3, 4, 5, 6, 7], [0, 4, 8, 9, 10]]),
  budget: 0.1, // C = 1
  prTol: 0.2, // newP ∈ [5, 7]
};

Deno.test("approx = the independent LP optimum (disjoint D1, overlapping O1)", async () => {
  for (const [inst, want] of [[D1, 1.4203623173318096], [O1, 0.8742151775501099]] as const) {
    const pr = buildProblem(inst.labels, inst.regions, inst);
    const r = await solveApprox(pr, 10);
    assert.equal(r.status.code, 0);
    close(r.objective!, want, 1e-6, "objective");
  }
  const pr = buildProblem(D1.labels, D1.regions, D1);
  assert.equal(pr.C, 2);
  assert.deepEqual([pr.P + pr.dMin, pr.P + pr.dMax], [18, 22]);
});

Deno.test("approx: a region of nobody or of everyone has weight sqrt(n(N-n)/N) = 0, no row, and leaves O1's optimum", async () => {
  const everyone = range(0, 12);
  const regions = regionsOf([[], [0, 1, 2, 3, 4, 5], everyone, [3, 4, 5, 6, 7], [0, 4, 8, 9, 10], []]);
  const pr = buildProblem(O1.labels, regions, O1);
  // positives per region, by hand from O1's labels 1,1,1,0,1,0,0,0,1,0,0,1
  assert.deepEqual([...pr.p], [0, 4, 6, 1, 3, 0]);
  const model = approxModel(pr), U = pr.unitSign.length;
  assert.equal(model.rowLower.length, 3 + 2); // the three regions with 0 < n < N, the budget, the sum
  assert.equal(model.colCost.length, U + 2 * 3 + 1);
  assert.equal(model.start.length, model.colCost.length + 1); // by columns
  const r = await solveApprox(pr, 10);
  assert.equal(r.status.code, 0);
  close(r.objective!, 0.8742151775501099, 1e-6, "objective");
});

Deno.test("relabel (approx): flips within budget, rates reported, metrics before/after", async () => {
  const yTrue = Uint8Array.from(D1.labels, (v, i) => (i % 7 === 0 ? 1 - v : v));
  const scope = Int32Array.from(D1.labels, (_, i) => i);
  const r = await relabel({ yPred: D1.labels, yTrue, scope, ...D1, approx: true, workLimitSeconds: 10 });
  assert.equal(r.status.code, 0);
  assert.ok(r.nFlips <= 2);
  assert.equal(r.flipBudget, 2);
  assert.deepEqual(r.newPositivesWindow, [18, 22]);
  assert.equal(r.positiveRateBefore, 0.5);
  let changed = 0;
  for (let i = 0; i < 40; i++) changed += r.mitigatedPreds[i] !== D1.labels[i] ? 1 : 0;
  assert.equal(changed, r.nFlips);
  assert.deepEqual([...r.flipped].every((i) => r.mitigatedPreds[i] !== D1.labels[i]), true);
  assert.ok(r.metricsBefore && r.metricsAfter);
  assert.equal(r.metricsBefore.n, 40);
});

Deno.test("infeasible: budget 0 with a window that excludes P answers status 3 and no flips (approx and exact)", async () => {
  const base = buildProblem(D1.labels, D1.regions, D1);
  // newP must be 22 (D = 2) but no flip is allowed
  const pr = { ...base, C: 0, dMin: 2, dMax: 2 };
  const approx = await solveApprox(pr, 10);
  assert.equal(approx.status.code, 3);
  assert.equal(approx.unitDelta, null);
  const exact = solveExactDisjoint(groupsOf(pr, xlogxTable(pr.N)), 2, 2, 10);
  assert.equal(exact.status.code, 3);
  assert.equal(exact.best, null);
  // the window as buildProblem clips it to ±C is empty: refused before any solver runs
  const clipped = { ...base, C: 0, dMin: 2, dMax: 0 };
  for (const approxFlag of [true, false]) {
    const r = await solveProblem(clipped, approxFlag, 10);
    assert.equal(r.status.code, 3);
    assert.equal(r.unitDelta, null);
  }
});

Deno.test("limit: a tiny work_limit on a large instance answers 1 (with a solution) or 2 (none), never throws", async () => {
  const { labels, regions } = overlappingInstance(60_000, [4, 8, 16, 32]);
  const scope = Int32Array.from(labels, (_, i) => i);
  const common = { yPred: labels, yTrue: null, scope, regions, budget: 0.05, prTol: 0.1 };
  const approx = await relabel({ ...common, approx: true, workLimitSeconds: 0.001 });
  assert.equal(approx.status.code, 2);
  assert.match(approx.status.detail, /time limit of 0.001 s/);
  assert.equal(approx.nFlips, 0);
  assert.deepEqual(approx.mitigatedPreds, labels);
  const exact = await relabel({ ...common, approx: false, workLimitSeconds: 0.05 });
  assert.equal(exact.status.code, 1);
  assert.match(exact.status.detail, /work limit of 0.05 s/);
  // the root node's bound: proven, below the best found
  assert.ok(exact.bound !== null && exact.bound <= exact.objective!);
});

Deno.test("HiGHS wrapper: a fractional integer column is settled at floor or ceil (here ceil is infeasible)", async () => {
  // min -y  s.t.  2y + x ≤ 3,  x ∈ [0, 0.5],  y ∈ [0, 5] integer: relaxation y = 1.5, answer y = 1
  const r = await solveSparse({
    colCost: Float64Array.from([0, -1]),
    colLower: Float64Array.from([0, 0]),
    colUpper: Float64Array.from([0.5, 5]),
    integer: [1],
    rowLower: Float64Array.from([-Infinity]),
    rowUpper: Float64Array.from([3]),
    // by columns: x is 1 in row 0, y is 2 in row 0
    start: Int32Array.from([0, 1, 2]),
    index: Int32Array.from([0, 0]),
    value: Float64Array.from([1, 2]),
  }, 10);
  assert.equal(r.status.code, 0);
  assert.equal(r.x![1], 1);
  assert.equal(r.objective, -1);
});

Deno.test("approx warm start: flips that fit and reach 0 are kept as they are; others change nothing", async () => {
  // O1 with a budget of every individual and a window of ±100 %: every region can reach the overall rate
  const loose = buildProblem(O1.labels, O1.regions, { budget: 1, prTol: 1 });
  const cold = await solveApproxByColumns(loose, 10);
  assert.equal(cold.status.code, 0);
  assert.ok(cold.objective! <= 1e-9, `${cold.objective}`);
  const again = await solveApproxByColumns(loose, 10, undefined, cold.unitDelta);
  assert.equal(again.status.code, 0);
  assert.equal(again.rounds, 0);
  assert.deepEqual(again.unitDelta, cold.unitDelta);
  // the same flips do not fit O1's budget of 1 flip: ignored, and O1's reference optimum comes out
  const tight = buildProblem(O1.labels, O1.regions, O1);
  const used = cold.unitDelta!.reduce((a, v, u) => a + v * tight.unitSign[u], 0);
  assert.ok(used > tight.C, `the warm start uses ${used} flips`);
  const r = await solveApproxByColumns(tight, 10, undefined, cold.unitDelta);
  assert.equal(r.status.code, 0);
  close(r.objective!, 0.8742151775501099, 1e-6, "objective");
});
