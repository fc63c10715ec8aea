/**
 * The zero-gap solve of PROMIS-Approx (docs/spatial-fairness.md "How the approx model is solved"): when the
 * budget allows every region to reach the overall rate, the optimum is 0 and any flips that reach it are
 * optimal, certified by the bound 0. Such problems are the hardest for the simplex (thousands of degenerate
 * pivots), so they are solved as the least-squares problem they are instead:
 *   minimise Σ_v z_v² / (2 w_v)  subject to  Ã z = r,  lo ≤ z ≤ hi,
 * over the units' flips and D (w: a unit's member count, D's weight the sum of them), where Ã z = r are
 * the model's rows with e± = 0: Σ_{u∋i} z_u − α_i D = b_i per region and Σ_u z_u − D = 0. Its dual,
 *   maximise ψ(y) = rᵀy − Σ_v [z_v c_v − z_v²/(2 w_v)],  c = Ãᵀy,  z_v = clip(w_v c_v, lo_v, hi_v),
 * is concave and smooth with gradient r − Ã z(y); a semismooth Newton method (step H⁻¹ g with
 * H = Σ_{v free} w_v ã_v ã_vᵀ, a sparse Cholesky, Armijo line search) reaches Ã z = r in a few steps when
 * it is reachable (on the rows as differences along nested regions, approx_chains.ts, which keeps H
 * sparse; a ridge on H where the miss stalls). D is then fixed at the nearest integer and the steps go
 * on. The answer counts only when its flips fit the budget; otherwise (or when the steps stall) the
 * column generation solves it.
 */
import type { ApproxRows } from "./approx_bound.ts";
import {
  type Chains,
  chainsOf,
  chainVector,
  type RowUnits,
  rowUnits,
  unchainVector,
} from "./approx_chains.ts";
import { choleskyFactor, choleskyPattern, choleskySolve } from "./sparse_cholesky.ts";
import type { MitigationProblem } from "./problem.ts";

/**
 * Newton matrices above this many rows (a packed lower triangle of 32-bit counts: 24 MB at 3,500) are left
 * to the column generation.
 */
export const ZERO_GAP_MAX_ROWS = 3_500;

/** Newton steps before giving up. */
const MAX_STEPS = 40;

/** The first ridge, relative to H's diagonal, of a step after the miss stalled (then ×10 while it stalls). */
const RIDGE = 1e-6;

/** A zero-gap point: real flips per unit and D, with every region at the overall rate. */
export interface ZeroGapPoint {
  x: Float64Array;
  D: number;
  steps: number;
}

/**
 * Each unit's rows in the Newton system: its rows of the model as differences along nested regions
 * (approx_chains.ts: a 1 only where the unit enters a chain, since pred(i) lies inside row i), then the sum
 * row T.
 */
function unitRows(
  pr: MitigationProblem,
  rows: ApproxRows,
  chains: Chains,
): { start: Int32Array; idx: Int32Array } {
  const U = pr.unitSign.length, T = rows.kappa.length, start = new Int32Array(U + 1);
  const idx: number[] = [], mark = new Int32Array(T).fill(-1);
  for (let u = 0; u < U; u++) {
    for (let k = rows.unitRowStart[u]; k < rows.unitRowStart[u + 1]; k++) mark[rows.unitRows[k]] = u;
    for (let k = rows.unitRowStart[u]; k < rows.unitRowStart[u + 1]; k++) {
      const i = rows.unitRows[k], p = chains.pred[i];
      if (p < 0 || mark[p] !== u) idx.push(i);
    }
    idx.push(T);
    start[u + 1] = idx.length;
  }
  return { start, idx: Int32Array.from(idx) };
}

/**
 * Units with the same rows (a signature's up and down units), as groups in lexicographic order of their
 * rows, so that consecutive groups touch the same rows of H while it is summed (the cache then holds
 * them: several times faster than every unit in its own order).
 */
function groupsOf(U: number, start: Int32Array, idx: Int32Array): { groupOf: Int32Array; first: Int32Array } {
  const len = (u: number) => start[u + 1] - start[u];
  const order = Int32Array.from({ length: U }, (_, u) => u).sort((a, b) => {
    const m = Math.min(len(a), len(b));
    for (let k = 0; k < m; k++) {
      const d = idx[start[a] + k] - idx[start[b] + k];
      if (d) return d;
    }
    return len(a) - len(b);
  });
  const groupOf = new Int32Array(U), first: number[] = [];
  for (let k = 0; k < U; k++) {
    const u = order[k], prev = k ? order[k - 1] : -1;
    let same = prev >= 0 && len(u) === len(prev);
    for (let p = 0; same && p < len(u); p++) same = idx[start[u] + p] === idx[start[prev] + p];
    if (!same) first.push(u);
    groupOf[u] = first.length - 1;
  }
  return { groupOf, first: Int32Array.from(first) };
}

/**
 * Adds w·a aᵀ of one unit's rows (ascending) to H, the packed lower triangle (row i at off[i]). H holds
 * counts of members, integers, so 32-bit integers keep them exact in half the memory a double takes (and
 * sum faster).
 */
function addOuter(
  H: Int32Array,
  off: Int32Array,
  idx: Int32Array,
  from: number,
  to: number,
  w: number,
): void {
  w |= 0;
  for (let p = from; p < to; p++) {
    const base = off[idx[p]];
    for (let q = from; q <= p; q++) H[base + idx[q]] += w;
  }
}

/**
 * Whether no flips within the budget can put every region at the overall rate, by a necessary condition:
 * rows with no unit in common (taken greedily, the largest miss at D = 0 first) each need their own
 * |b_i + α_i D| flips, so when those add up to more than C for every D in the window, the least squares
 * could only find flips over the budget. Their sum is convex in D, least at the α-weighted median of the
 * points −b_i/α_i (clamped to the window). False says nothing. `ru`: the rows' units, when the caller has
 * them.
 */
export function zeroGapOutOfReach(
  pr: MitigationProblem,
  rows: ApproxRows,
  { start, units }: RowUnits = rowUnits(rows),
): boolean {
  const T = rows.kappa.length, U = pr.unitSign.length;
  const taken = new Uint8Array(U), family: number[] = [];
  const order = Int32Array.from({ length: T }, (_, i) => i).sort((a, b) =>
    Math.abs(rows.rhs[b]) - Math.abs(rows.rhs[a])
  );
  for (const i of order) {
    let free = true;
    for (let k = start[i]; k < start[i + 1] && free; k++) free = taken[units[k]] === 0;
    if (!free) continue;
    family.push(i);
    for (let k = start[i]; k < start[i + 1]; k++) taken[units[k]] = 1;
  }
  const at = family.map((i) => -rows.rhs[i] / rows.alpha[i]), byPoint = family.map((_, k) => k);
  byPoint.sort((a, b) => at[a] - at[b]);
  let half = family.reduce((s, i) => s + rows.alpha[i], 0) / 2, median = 0;
  for (const k of byPoint) if ((half -= rows.alpha[family[k]]) <= 0) (median = at[k], half = Infinity);
  const D = Math.min(Math.max(median, Math.max(pr.dMin, -pr.C)), Math.min(pr.dMax, pr.C));
  return family.reduce((s, i) => s + Math.abs(rows.rhs[i] + rows.alpha[i] * D), 0) > pr.C;
}

/**
 * Flips that put every region at the overall rate within the budget, or null when the Newton steps do not
 * reach it by `deadline` (ms, performance.now()) or the flips it needs exceed the budget; then `overBudget`,
 * when given, receives the least-squares flips that exceeded it (the column generation starts from them).
 * `given`: the rows' chains when the caller has them (chainsOf(rows) otherwise).
 */
export function solveZeroGap(
  pr: MitigationProblem,
  rows: ApproxRows,
  deadline: number,
  overBudget?: { x: Float64Array | null },
  given?: Chains,
): ZeroGapPoint | null {
  const U = pr.unitSign.length, T = rows.kappa.length, n = T + 1;
  if (n > ZERO_GAP_MAX_ROWS || U === 0) return null;
  const chains = given ?? chainsOf(rows);
  const { start, idx } = unitRows(pr, rows, chains);
  const w = Float64Array.from(pr.unitCount), lo = new Float64Array(U), hi = new Float64Array(U);
  for (let u = 0; u < U; u++) pr.unitSign[u] > 0 ? (hi[u] = w[u]) : (lo[u] = -w[u]);
  let wD = 0, loD = pr.dMin, hiD = pr.dMax;
  for (let u = 0; u < U; u++) wD += w[u];
  // H over every unit (all are free at y = 0), a group at a time; units that leave the free set later are
  // subtracted, with their group's rows
  const { groupOf, first } = groupsOf(U, start, idx), gw = new Int32Array(first.length);
  for (let u = 0; u < U; u++) gw[groupOf[u]] += w[u];
  const off = Int32Array.from({ length: n }, (_, i) => (i * (i + 1)) / 2);
  const H = new Int32Array((n * (n + 1)) / 2), inH = new Uint8Array(U).fill(1);
  first.forEach((u, g) => addOuter(H, off, idx, start[u], start[u + 1], gw[g]));
  const pattern = choleskyPattern(n, (i, j) => H[off[i] + j] !== 0);
  const aD = new Float64Array(n);
  for (let i = 0; i < T; i++) aD[i] = -rows.alpha[i];
  aD[T] = -1;
  const r = new Float64Array(n);
  r.set(rows.rhs);
  // the rows as differences, as unitRows has them
  (aD.set(chainVector(aD.subarray(0, T), chains, T)), r.set(chainVector(r.subarray(0, T), chains, T)));
  let y = new Float64Array(n), steps = 0, fixedD = false, converged = false;
  const c = new Float64Array(U), z = new Float64Array(U);
  // z(y), ψ(y) and the gradient r − Ã z(y)
  const evaluate = (yy: Float64Array) => {
    let psi = 0;
    const g = r.slice();
    for (let u = 0; u < U; u++) {
      let s = 0;
      for (let p = start[u]; p < start[u + 1]; p++) s += yy[idx[p]];
      const v = Math.min(hi[u], Math.max(lo[u], w[u] * s));
      (c[u] = s, z[u] = v, psi += v * s - (v * v) / (2 * w[u]));
      if (v !== 0) { for (let p = start[u]; p < start[u + 1]; p++) g[idx[p]] -= v; }
    }
    let cD = 0;
    for (let i = 0; i < n; i++) (cD += aD[i] * yy[i], psi -= r[i] * yy[i]);
    const zD = Math.min(hiD, Math.max(loD, wD * cD));
    psi += zD * cD - (zD * zD) / (2 * wD);
    for (let i = 0; i < n; i++) g[i] -= aD[i] * zD;
    return { psi: -psi, g, zD, cD };
  };
  // how far Ã z is from r: the approx objective of these flips (e± = |residual|) and the sum row's miss
  const miss = (gChained: Float64Array) => {
    const g = unchainVector(gChained, chains);
    let e = Math.abs(g[T]);
    for (let i = 0; i < T; i++) e += rows.kappa[i] * Math.abs(g[i]);
    return e;
  };
  let cur = evaluate(y), err0: number | undefined, lastErr = NaN, ridge = 0;
  for (; steps < MAX_STEPS && performance.now() < deadline; steps++) {
    const err = miss(cur.g);
    err0 ??= err;
    let used = 0;
    for (let u = 0; u < U; u++) used += Math.abs(z[u]);
    // the least-squares flips exceed the budget (well before the end, or at it): the simplex decides
    if ((err <= 0.05 * err0 && used > 1.5 * pr.C) || (err <= 1e-8 && used > pr.C)) {
      if (overBudget) overBudget.x = z.slice();
      return null;
    }
    if (err <= 1e-8) {
      if ((converged = fixedD)) break;
      // D must be an integer: fix it at the nearest one and step on from here
      (loD = hiD = Math.round(cur.zD), fixedD = true);
      cur = evaluate(y);
      continue;
    }
    // units that entered or left the free set change H by their group's rows, once per group
    const delta = new Int32Array(first.length);
    for (let u = 0; u < U; u++) {
      const free = w[u] * c[u] >= lo[u] && w[u] * c[u] <= hi[u] ? 1 : 0;
      if (free !== inH[u]) (delta[groupOf[u]] += free ? w[u] : -w[u], inH[u] = free);
    }
    delta.forEach((dw, g) => dw && addOuter(H, off, idx, start[first[g]], start[first[g] + 1], dw));
    // a row the factor finds dependent gets no step, so a miss left in it stays: when the miss stops
    // moving, a ridge on H's diagonal (Levenberg–Marquardt) moves it, and fades once the steps go on
    const stalled = Math.abs(err - lastErr) <= 1e-3 * lastErr;
    ridge = stalled ? Math.max(10 * ridge, RIDGE) : ridge / 100 < RIDGE ? 0 : ridge / 100;
    lastErr = err;
    const f = choleskyFactor(pattern, (i, j) => H[off[i] + j] + (i === j ? ridge * (H[off[i] + i] + 1) : 0));
    let d = choleskySolve(f, cur.g);
    if (!fixedD && wD * cur.cD >= loD && wD * cur.cD <= hiD) {
      // D free: H + w_D a_D a_Dᵀ, by Sherman–Morrison
      const v2 = choleskySolve(f, aD);
      let a1 = 0, a2 = 0;
      for (let i = 0; i < n; i++) (a1 += aD[i] * d[i], a2 += aD[i] * v2[i]);
      const k = (wD * a1) / (1 + wD * a2);
      d = d.map((v, i) => v - k * v2[i]);
    }
    let slope = 0;
    for (let i = 0; i < n; i++) slope += cur.g[i] * d[i];
    // Armijo on ψ, or (where ψ's rounding hides the gain, near the end) a clear fall of the miss
    let s = 1, next = cur, ny = y, ok = false;
    for (let tries = 0; tries < 40 && !ok; tries++, s /= 2) {
      ny = y.map((v, i) => v + s * d[i]);
      next = evaluate(ny);
      ok = next.psi >= cur.psi + 1e-4 * s * slope || miss(next.g) <= 0.5 * err;
    }
    if (!ok) return null; // no ascent: the steps stall
    (y = ny, cur = next);
  }
  if (!converged) return null;
  let used = 0;
  for (let u = 0; u < U; u++) used += Math.abs(z[u]);
  return used <= pr.C * (1 + 1e-12) ? { x: z.slice(), D: cur.zD, steps } : null;
}
