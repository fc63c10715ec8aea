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

/** The dual at one y: its value (negated: lower is better), gradient r − Ã z(y), D's flips and D's c. */
interface DualAt {
  psi: number;
  g: Float64Array;
  zD: number;
  cD: number;
}

/**
 * The least-squares dual's pieces over the units' rows (as differences along nested regions): the
 * weights and boxes of the units and of D, H (packed lower triangle, its pattern fixed at y = 0), and z(y)
 * and c(y) of the last y evaluated.
 */
class ZeroGapDual {
  readonly U: number;
  readonly T: number;
  readonly n: number;
  readonly start: Int32Array;
  readonly idx: Int32Array;
  readonly w: Float64Array;
  readonly lo: Float64Array;
  readonly hi: Float64Array;
  wD = 0;
  loD: number;
  hiD: number;
  readonly groupOf: Int32Array;
  readonly first: Int32Array;
  readonly off: Int32Array;
  readonly H: Int32Array;
  /** Units whose weight is in H (the free ones of the last update). */
  readonly inH: Uint8Array;
  readonly pattern: ReturnType<typeof choleskyPattern>;
  readonly aD: Float64Array;
  readonly r: Float64Array;
  readonly c: Float64Array;
  readonly z: Float64Array;

  constructor(readonly pr: MitigationProblem, readonly rows: ApproxRows, readonly chains: Chains) {
    const U = (this.U = pr.unitSign.length), T = (this.T = rows.kappa.length), n = (this.n = T + 1);
    ({ start: this.start, idx: this.idx } = unitRows(pr, rows, chains));
    (this.w = Float64Array.from(pr.unitCount), this.lo = new Float64Array(U), this.hi = new Float64Array(U));
    for (let u = 0; u < U; u++) pr.unitSign[u] > 0 ? (this.hi[u] = this.w[u]) : (this.lo[u] = -this.w[u]);
    (this.loD = pr.dMin, this.hiD = pr.dMax);
    for (let u = 0; u < U; u++) this.wD += this.w[u];
    // H over every unit (all are free at y = 0), a group at a time; units that leave the free set later are
    // subtracted, with their group's rows
    ({ groupOf: this.groupOf, first: this.first } = groupsOf(U, this.start, this.idx));
    const gw = new Int32Array(this.first.length);
    for (let u = 0; u < U; u++) gw[this.groupOf[u]] += this.w[u];
    this.off = Int32Array.from({ length: n }, (_, i) => (i * (i + 1)) / 2);
    (this.H = new Int32Array((n * (n + 1)) / 2), this.inH = new Uint8Array(U).fill(1));
    this.first.forEach((u, g) =>
      addOuter(this.H, this.off, this.idx, this.start[u], this.start[u + 1], gw[g])
    );
    this.pattern = choleskyPattern(n, (i, j) => this.H[this.off[i] + j] !== 0);
    this.aD = new Float64Array(n);
    for (let i = 0; i < T; i++) this.aD[i] = -rows.alpha[i];
    this.aD[T] = -1;
    this.r = new Float64Array(n);
    this.r.set(rows.rhs);
    // the rows as differences, as unitRows has them
    this.aD.set(chainVector(this.aD.subarray(0, T), chains, T));
    this.r.set(chainVector(this.r.subarray(0, T), chains, T));
    (this.c = new Float64Array(U), this.z = new Float64Array(U));
  }

  /** z(y), ψ(y) and the gradient r − Ã z(y). */
  evaluate(yy: Float64Array): DualAt {
    const { U, n, start, idx, w, lo, hi, c, z, aD, r } = this;
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
    const zD = Math.min(this.hiD, Math.max(this.loD, this.wD * cD));
    psi += zD * cD - (zD * zD) / (2 * this.wD);
    for (let i = 0; i < n; i++) g[i] -= aD[i] * zD;
    return { psi: -psi, g, zD, cD };
  }

  /** How far Ã z is from r: the approx objective of these flips (e± = |residual|) and the sum row's miss. */
  miss(gChained: Float64Array): number {
    const g = unchainVector(gChained, this.chains);
    let e = Math.abs(g[this.T]);
    for (let i = 0; i < this.T; i++) e += this.rows.kappa[i] * Math.abs(g[i]);
    return e;
  }

  /** Flips used by the last z. */
  used(): number {
    let used = 0;
    for (let u = 0; u < this.U; u++) used += Math.abs(this.z[u]);
    return used;
  }

  /** Units that entered or left the free set change H by their group's rows, once per group. */
  refreshH(): void {
    const { U, w, c, lo, hi, inH, groupOf, first, idx, start } = this;
    const delta = new Int32Array(first.length);
    for (let u = 0; u < U; u++) {
      const free = w[u] * c[u] >= lo[u] && w[u] * c[u] <= hi[u] ? 1 : 0;
      if (free !== inH[u]) (delta[groupOf[u]] += free ? w[u] : -w[u], inH[u] = free);
    }
    delta.forEach((dw, g) => dw && addOuter(this.H, this.off, idx, start[first[g]], start[first[g] + 1], dw));
  }

  /** The Newton step H⁻¹ g, a ridge on H's diagonal; with D free, H + w_D a_D a_Dᵀ by Sherman–Morrison. */
  step(cur: DualAt, ridge: number, fixedD: boolean): Float64Array {
    const { H, off, n, aD, wD } = this;
    const f = choleskyFactor(
      this.pattern,
      (i, j) => H[off[i] + j] + (i === j ? ridge * (H[off[i] + i] + 1) : 0),
    );
    let d = choleskySolve(f, cur.g);
    if (!fixedD && wD * cur.cD >= this.loD && wD * cur.cD <= this.hiD) {
      const v2 = choleskySolve(f, aD);
      let a1 = 0, a2 = 0;
      for (let i = 0; i < n; i++) (a1 += aD[i] * d[i], a2 += aD[i] * v2[i]);
      const k = (wD * a1) / (1 + wD * a2);
      d = d.map((v, i) => v - k * v2[i]);
    }
    return d;
  }

  /**
   * Armijo on ψ along d from y, or (where ψ's rounding hides the gain, near the end) a clear fall of the
   * miss; null when no step ascends.
   */
  ascend(y: Float64Array, cur: DualAt, d: Float64Array, err: number): { y: Float64Array; at: DualAt } | null {
    let slope = 0;
    for (let i = 0; i < this.n; i++) slope += cur.g[i] * d[i];
    let s = 1;
    for (let tries = 0; tries < 40; tries++, s /= 2) {
      const ny = y.map((v, i) => v + s * d[i]), next = this.evaluate(ny);
      if (next.psi >= cur.psi + 1e-4 * s * slope || this.miss(next.g) <= 0.5 * err) {
        return { y: ny, at: next };
      }
    }
    return null;
  }
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
  if (rows.kappa.length + 1 > ZERO_GAP_MAX_ROWS || pr.unitSign.length === 0) return null;
  const q = new ZeroGapDual(pr, rows, given ?? chainsOf(rows));
  let y: Float64Array = new Float64Array(q.n), steps = 0, fixedD = false, converged = false;
  let cur = q.evaluate(y), err0: number | undefined, lastErr = NaN, ridge = 0;
  for (; steps < MAX_STEPS && performance.now() < deadline; steps++) {
    const err = q.miss(cur.g), used = q.used();
    err0 ??= err;
    // the least-squares flips exceed the budget (well before the end, or at it): the simplex decides
    if ((err <= 0.05 * err0 && used > 1.5 * pr.C) || (err <= 1e-8 && used > pr.C)) {
      if (overBudget) overBudget.x = q.z.slice();
      return null;
    }
    if (err <= 1e-8) {
      if ((converged = fixedD)) break;
      // D must be an integer: fix it at the nearest one and step on from here
      (q.loD = q.hiD = Math.round(cur.zD), fixedD = true);
      cur = q.evaluate(y);
      continue;
    }
    q.refreshH();
    // a row the factor finds dependent gets no step, so a miss left in it stays: when the miss stops
    // moving, a ridge on H's diagonal (Levenberg–Marquardt) moves it, and fades once the steps go on
    const stalled = Math.abs(err - lastErr) <= 1e-3 * lastErr;
    ridge = stalled ? Math.max(10 * ridge, RIDGE) : ridge / 100 < RIDGE ? 0 : ridge / 100;
    lastErr = err;
    const next = q.ascend(y, cur, q.step(cur, ridge, fixedD), err);
    if (!next) return null; // no ascent: the steps stall
    (y = next.y, cur = next.at);
  }
  if (!converged) return null;
  return q.used() <= pr.C * (1 + 1e-12) ? { x: q.z.slice(), D: cur.zD, steps } : null;
}
