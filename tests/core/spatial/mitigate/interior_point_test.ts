/**
 * Tessera's interior point (interior_point.ts) against a hand-solved LP and against HiGHS's simplex on
 * random bounded LPs (an independent solve in the same run), and the sparse Cholesky's pattern from
 * columns and its factor in L's layout against the dense matrix A Aᵀ.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type BoxLP, interiorPoint } from "../../../../core/spatial/mitigate/interior_point.ts";
import { solveSparse } from "../../../../core/spatial/mitigate/highs.ts";
import {
  choleskyFactorLaid,
  choleskyPattern,
  choleskyPatternOfColumns,
  choleskySolve,
  laidIndex,
} from "../../../../core/spatial/mitigate/sparse_cholesky.ts";

const forever = { stopGap: 1e-8, maxIterations: 100, deadline: Infinity };

/** Columns (each a list of [row, value]) as CSC. */
function csc(cols: [number, number][][]) {
  const start = new Int32Array(cols.length + 1), index: number[] = [], value: number[] = [];
  cols.forEach((c, j) => {
    for (const [i, v] of [...c].sort((a, b) => a[0] - b[0])) (index.push(i), value.push(v));
    start[j + 1] = index.length;
  });
  return { start, index: Int32Array.from(index), value: Float64Array.from(value) };
}

/** min x1 + 2·x2 + 0·x3 with x1 + x2 + x3 = 2, x1 ≤ 1, x3 ≤ 1. */
function byHand(): BoxLP {
  return {
    rows: 1,
    cost: Float64Array.from([1, 2, 0]),
    upper: Float64Array.from([1, Infinity, 1]),
    rhs: Float64Array.from([2]),
    ...csc([[[0, 1]], [[0, 1]], [[0, 1]]]),
    dense: -1,
  };
}

Deno.test("interior point by hand: min x1 + 2·x2 with x1 + x2 + x3 = 2, x1 ≤ 1, x3 ≤ 1", () => {
  // x3 costs nothing but stops at 1, x1 takes the other unit (cheaper than x2): optimum 1 at (1, 0, 1)
  const lp = byHand();
  const p = interiorPoint(lp, forever);
  assert.ok(p);
  assert.ok(Math.abs(p.v[0] - 1) <= 1e-7 && Math.abs(p.v[1]) <= 1e-7 && Math.abs(p.v[2] - 1) <= 1e-7);
  // any y in [1, 2] prices the three columns right; the dual objective 2y − q1 − q3 is 1 there
  assert.ok(p.y[0] >= 1 - 1e-6 && p.y[0] <= 2 + 1e-6, String(p.y[0]));
  assert.ok(p.gap <= 1e-8);
});

/** A random feasible LP: b = A·x0 for an x0 inside the bounds; unbounded columns cost ≥ 0 (so bounded below). */
const lps = fc.record({
  m: fc.integer({ min: 1, max: 7 }),
  extra: fc.integer({ min: 1, max: 14 }),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
  dense: fc.boolean(),
}).map(({ m, extra, seed, dense }) => {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const n = m + extra, cols: [number, number][][] = [];
  const upper = new Float64Array(n), cost = new Float64Array(n), x0 = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    const c: [number, number][] = [];
    for (let i = 0; i < m; i++) if (rand() < 0.5 || i === j % m) c.push([i, Math.round(rand() * 4) - 2 || 1]);
    cols.push(c);
    upper[j] = rand() < 0.5 ? 1 + Math.round(rand() * 4) : Infinity;
    cost[j] = upper[j] < Infinity ? Math.round(rand() * 10) - 5 : Math.round(rand() * 5);
    x0[j] = (upper[j] < Infinity ? upper[j] : 3) * rand();
  }
  const rhs = new Float64Array(m);
  cols.forEach((c, j) => c.forEach(([i, v]) => (rhs[i] += v * x0[j])));
  const lp: BoxLP = { rows: m, cost, upper, rhs, ...csc(cols), dense: dense ? n - 1 : -1 };
  return lp;
});

Deno.test("interior point = HiGHS's optimum on random bounded LPs (to 1e-6), and its dual objective bounds it", async () => {
  await fc.assert(
    fc.asyncProperty(lps, async (lp) => {
      const n = lp.cost.length;
      const highs = await solveSparse({
        colCost: lp.cost,
        colLower: new Float64Array(n),
        colUpper: lp.upper,
        integer: [],
        rowLower: lp.rhs,
        rowUpper: lp.rhs,
        start: lp.start,
        index: lp.index,
        value: lp.value,
      }, 10);
      assert.equal(highs.status.code, 0, highs.status.detail);
      const p = interiorPoint(lp, forever);
      assert.ok(p, "the interior point converged");
      let primal = 0, dual = 0;
      for (let j = 0; j < n; j++) {
        primal += lp.cost[j] * p.v[j];
        if (lp.upper[j] < Infinity) dual -= lp.upper[j] * p.q[j];
        assert.ok(p.v[j] >= 0 && p.v[j] <= lp.upper[j]);
      }
      for (let i = 0; i < lp.rows; i++) dual += lp.rhs[i] * p.y[i];
      const opt = highs.objective!, tol = 1e-6 * Math.max(1, Math.abs(opt));
      assert.ok(Math.abs(primal - opt) <= tol, `${primal} against HiGHS's ${opt}`);
      assert.ok(Math.abs(dual - opt) <= tol, `dual ${dual} against ${opt}`);
      // A v = b
      const Av = new Float64Array(lp.rows);
      for (let j = 0; j < n; j++) {
        for (let k = lp.start[j]; k < lp.start[j + 1]; k++) Av[lp.index[k]] += lp.value[k] * p.v[j];
      }
      Av.forEach((a, i) => assert.ok(Math.abs(a - lp.rhs[i]) <= 1e-6 * Math.max(1, Math.abs(lp.rhs[i]))));
    }),
    { numRuns: 150, seed: 35 },
  );
});

Deno.test("interior point: no convergence within the iterations or the deadline answers null, never throws", () => {
  const lp = byHand();
  assert.equal(interiorPoint(lp, { ...forever, maxIterations: 2 }), null);
  assert.equal(interiorPoint(lp, { ...forever, deadline: 0 }), null);
});

/** min Σ v over m rows v_0 + v_{i+1} = 1: column 0 in every row, optimum 1 at v_0 = 1 (by hand). */
function shared(m: number, dense: number): BoxLP {
  const all: [number, number][] = Array.from({ length: m }, (_, i) => [i, 1]);
  const own = Array.from({ length: m }, (_, i): [number, number][] => [[i, 1]]);
  return {
    rows: m,
    cost: new Float64Array(m + 1).fill(1),
    upper: new Float64Array(m + 1).fill(Infinity),
    rhs: new Float64Array(m).fill(1),
    ...csc([all, ...own]),
    dense,
  };
}

Deno.test("interior point: a normal matrix whose factor would be dense answers null at once", () => {
  // 1,000 rows and one column in all of them: A Aᵀ is full, its factor ~m³/3 = 3.3e8 multiply-adds
  const t0 = performance.now();
  assert.equal(interiorPoint(shared(1_000, -1), forever), null);
  assert.ok(performance.now() - t0 < 5_000);
  // that column kept out of the factor (Sherman–Morrison), on 30 rows: v_0 = 1, the others 0
  const p = interiorPoint(shared(30, 0), forever);
  assert.ok(p);
  assert.ok(Math.abs(p.v[0] - 1) <= 1e-7 && p.v.every((v, j) => j === 0 || v <= 1e-7));
});

Deno.test("Cholesky: the pattern from columns is A Aᵀ's, and a matrix laid out in it factors to A Aᵀ", () => {
  fc.assert(
    fc.property(lps, (lp) => {
      const m = lp.rows, n = lp.cost.length, dense = new Float64Array(m * m);
      for (let j = 0; j < n; j++) {
        for (let p = lp.start[j]; p < lp.start[j + 1]; p++) {
          for (let q = lp.start[j]; q < lp.start[j + 1]; q++) {
            dense[lp.index[p] * m + lp.index[q]] += lp.value[p] * lp.value[q];
          }
        }
      }
      for (let i = 0; i < m; i++) dense[i * m + i] += 1; // positive definite
      const fromColumns = choleskyPatternOfColumns(m, lp.start, lp.index);
      const byEntries = choleskyPattern(m, (i, j) => dense[i * m + j] !== 0 || hasPair(lp, i, j));
      assert.deepEqual([...fromColumns.perm], [...byEntries.perm]);
      assert.deepEqual([...fromColumns.rows], [...byEntries.rows]);
      const inv = new Int32Array(m);
      fromColumns.perm.forEach((r, k) => (inv[r] = k));
      const laid = new Float64Array(m + fromColumns.rows.length);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j <= i; j++) {
          const at = laidIndex(fromColumns, inv, i, j);
          if (at >= 0) laid[at] = dense[i * m + j];
          else assert.equal(dense[i * m + j], 0);
        }
      }
      const b = Float64Array.from({ length: m }, (_, i) => i - 1.5),
        x = choleskySolve(choleskyFactorLaid(fromColumns, laid), b);
      for (let i = 0; i < m; i++) {
        let s = 0;
        for (let j = 0; j < m; j++) s += dense[i * m + j] * x[j];
        assert.ok(Math.abs(s - b[i]) <= 1e-9 * (1 + Math.abs(b[i])));
      }
    }),
    { numRuns: 100, seed: 35 },
  );
});

/** Whether some column of the LP holds both rows i and j (A Aᵀ's structure, whatever the values). */
function hasPair(lp: BoxLP, i: number, j: number): boolean {
  for (let c = 0; c + 1 < lp.start.length; c++) {
    let a = false, b = false;
    for (let p = lp.start[c]; p < lp.start[c + 1]; p++) (a ||= lp.index[p] === i, b ||= lp.index[p] === j);
    if (a && b) return true;
  }
  return false;
}
