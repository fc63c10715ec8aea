/**
 * PROMIS-Exact's continuous relaxation at one newP (docs/spatial-fairness.md "PROMIS-Exact", "Where the
 * budget binds"). For a fixed P' = P + D the objective Σ_i φ_i(z_i, P'), z_i = p_i + Σ_{u∋i} s_u k_u, is
 * convex in the flips k, so over real k in the box 0 ≤ k_u ≤ count_u, with Σ k ≤ C and Σ s_u k_u = D, a
 * spectral projected gradient (Birgin, Martínez and Raydan's SPG) finds its optimum. Its point rounds to
 * an incumbent; its gradient φ'_i(z_i) is the multiplier set of a Lagrangian bound (exact_dual_bound.ts).
 */
import type { MitigationProblem } from "./problem.ts";

/** x·ln x for real x ≥ 0. */
const xlx = (v: number) => (v > 0 ? v * Math.log(v) : 0);
/** ln, finite at 0 (the gradient's log terms at a region's edge). */
const ln = (v: number) => Math.log(v > 1e-300 ? v : 1e-300);

/** The relaxation's point at one D: real flips per unit, its objective, φ'_i(z_i) per region. */
export interface Relaxation {
  D: number;
  k: Float64Array;
  value: number;
  y: Float64Array;
  iterations: number;
}

/** The up and the down units' indices, their counts, and room for their values in a projection. */
export interface Directions {
  up: Int32Array;
  down: Int32Array;
  upCount: Float64Array;
  downCount: Float64Array;
  upV: Float64Array;
  downV: Float64Array;
}

/** The units split by direction once, so that each projection walks two dense arrays. */
export function directionsOf(pr: MitigationProblem): Directions {
  const all = Int32Array.from(pr.unitSign.keys());
  const up = all.filter((u) => pr.unitSign[u] > 0), down = all.filter((u) => pr.unitSign[u] < 0);
  const count = (idx: Int32Array) => Float64Array.from(idx, (u) => pr.unitCount[u]);
  return {
    up,
    down,
    upCount: count(up),
    downCount: count(down),
    upV: new Float64Array(up.length),
    downV: new Float64Array(down.length),
  };
}

/** Σ_j clip(v_j - th, 0, c_j). */
function clippedSum(v: Float64Array, c: Float64Array, th: number): number {
  let s = 0;
  for (let j = 0; j < v.length; j++) {
    const w = v[j] - th;
    s += w <= 0 ? 0 : w >= c[j] ? c[j] : w;
  }
  return s;
}

/**
 * The root of a falling, piecewise linear f in [lo, hi] (f(lo) ≥ 0 ≥ f(hi)) by regula falsi with the Illinois
 * halving, which lands exactly once both ends sit on the root's piece (a dozen values instead of bisection's
 * 40+); every third step bisects, so an end stuck at a tiny value cannot stall it.
 */
function fallingRoot(f: (x: number) => number, lo: number, hi: number): number {
  let flo = f(lo), fhi = f(hi), wlo = flo, whi = fhi, side = 0;
  for (let it = 0; it < 200 && hi - lo > 1e-12 * Math.max(1, Math.abs(lo), Math.abs(hi)); it++) {
    if (flo === 0) return lo;
    if (fhi === 0) return hi;
    const secant = wlo - whi > 0 ? lo + (wlo * (hi - lo)) / (wlo - whi) : (lo + hi) / 2;
    const m = it % 3 === 2 || !(secant > lo && secant < hi) ? (lo + hi) / 2 : secant;
    const fm = f(m);
    if (fm === 0) return m;
    if (fm > 0) {
      (lo = m, flo = wlo = fm);
      if (side === 1) whi /= 2;
      side = 1;
    } else {
      (hi = m, fhi = whi = fm);
      if (side === -1) wlo /= 2;
      side = -1;
    }
  }
  return Math.abs(flo) <= Math.abs(fhi) ? lo : hi;
}

/** The threshold th where clippedSum(v, c, th) = target (it falls as th grows). */
function threshold(v: Float64Array, c: Float64Array, target: number): number {
  let lo = Infinity, hi = -Infinity;
  for (let j = 0; j < v.length; j++) (lo = Math.min(lo, v[j] - c[j]), hi = Math.max(hi, v[j]));
  if (!(lo < hi)) return hi;
  return fallingRoot((th) => clippedSum(v, c, th) - target, lo, hi);
}

/**
 * The Euclidean projection of v onto {0 ≤ k ≤ count, Σ s k = D, Σ k ≤ C}: k_u = clip(v_u - τ - ν s_u). With
 * the budget slack (τ = 0) one threshold ν settles Σ s k = D; when that spends more than C, the budget binds
 * and the up and down units take (C + D)/2 and (C - D)/2 flips, each by its own threshold.
 */
export function projectFlips(
  pr: MitigationProblem,
  dir: Directions,
  v: Float64Array,
  D: number,
  out: Float64Array,
): void {
  const { up, down, upCount, downCount, upV, downV } = dir;
  for (let j = 0; j < up.length; j++) upV[j] = v[up[j]];
  for (let j = 0; j < down.length; j++) downV[j] = v[down[j]];
  // τ = 0: an up unit takes clip(v - ν), a down unit clip(v + ν); S_up(ν) - S_down(-ν) = D falls in ν
  const net = (nu: number) => clippedSum(upV, upCount, nu) - clippedSum(downV, downCount, -nu);
  let lo = -1, hi = 1;
  while (net(lo) < D && lo > -1e15) lo *= 2;
  while (net(hi) > D && hi < 1e15) hi *= 2;
  let a = fallingRoot((nu) => net(nu) - D, lo, hi), b = -a;
  if (clippedSum(upV, upCount, a) + clippedSum(downV, downCount, b) > pr.C) {
    (a = threshold(upV, upCount, (pr.C + D) / 2), b = threshold(downV, downCount, (pr.C - D) / 2));
  }
  for (let j = 0; j < up.length; j++) out[up[j]] = Math.min(upCount[j], Math.max(0, upV[j] - a));
  for (let j = 0; j < down.length; j++) out[down[j]] = Math.min(downCount[j], Math.max(0, downV[j] - b));
}

/** The relaxation's objective at flips k (and, into g, φ'_i(z_i) per region). */
function objective(
  pr: MitigationProblem,
  D: number,
  k: Float64Array,
  z: Float64Array,
  g: Float64Array,
): number {
  const N = pr.N, Pp = pr.P + D, R = pr.n.length, base = xlx(Pp) + xlx(N - Pp) - xlx(N);
  for (let i = 0; i < R; i++) z[i] = pr.p[i];
  for (let u = 0; u < k.length; u++) {
    const d = pr.unitSign[u] * k[u];
    if (d) { for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) z[pr.unitRegions[r]] += d; }
  }
  let f = 0;
  for (let i = 0; i < R; i++) {
    const n = pr.n[i], M = N - n, x = z[i], q = Pp - x;
    if (n === 0 || n === N) {
      g[i] = 0;
      continue;
    }
    f += xlx(x) + xlx(n - x) + xlx(q) + xlx(M - q) - xlx(n) - xlx(M) - base;
    g[i] = ln(x) - ln(n - x) - ln(q) + ln(M - q);
  }
  return f;
}

/** Per unit, the gradient s_u Σ_{i∋u} g_i. */
function unitGradient(pr: MitigationProblem, g: Float64Array, out: Float64Array): void {
  for (let u = 0; u < out.length; u++) {
    let s = 0;
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) s += g[pr.unitRegions[r]];
    out[u] = pr.unitSign[u] * s;
  }
}

/**
 * The relaxation at D (dMin ≤ D ≤ dMax), from `warm` (a neighbouring D's flips) or no flips, until
 * `iterations` steps or `deadline` (performance.now() ms). SPG: Barzilai–Borwein steps, projected, with a
 * non-monotone Armijo test over the last 10 values.
 */
export function relaxAtD(
  pr: MitigationProblem,
  D: number,
  deadline: number,
  iterations = 400,
  warm: Float64Array | null = null,
): Relaxation {
  const U = pr.unitSign.length, R = pr.n.length, dir = directionsOf(pr);
  const k = new Float64Array(U), trial = new Float64Array(U), step = new Float64Array(U);
  const z = new Float64Array(R), g = new Float64Array(R), gTrial = new Float64Array(R);
  const grad = new Float64Array(U), gradTrial = new Float64Array(U);
  projectFlips(pr, dir, warm ?? k, D, k);
  let f = objective(pr, D, k, z, g);
  unitGradient(pr, g, grad);
  const recent = [f];
  let alpha = 1, it = 0;
  for (; it < iterations && performance.now() < deadline; it++) {
    for (let u = 0; u < U; u++) trial[u] = k[u] - alpha * grad[u];
    projectFlips(pr, dir, trial, D, step);
    let slope = 0;
    for (let u = 0; u < U; u++) (step[u] -= k[u], slope += grad[u] * step[u]);
    if (!(slope < -1e-12 * Math.max(1, Math.abs(f)))) break; // stationary: no descent left
    const ceiling = Math.max(...recent);
    let ft = Infinity, accepted = false;
    for (let ls = 0, t = 1; ls < 40 && !accepted; ls++, t /= 2) {
      for (let u = 0; u < U; u++) trial[u] = k[u] + t * step[u];
      ft = objective(pr, D, trial, z, gTrial);
      accepted = ft <= ceiling + 1e-4 * t * slope;
    }
    if (!accepted) break;
    unitGradient(pr, gTrial, gradTrial);
    let sy = 0, ss = 0;
    for (let u = 0; u < U; u++) {
      const s = trial[u] - k[u], y = gradTrial[u] - grad[u];
      (sy += s * y, ss += s * s);
    }
    alpha = sy > 0 ? Math.min(1e8, Math.max(1e-8, ss / sy)) : 1e4;
    (k.set(trial), grad.set(gradTrial), g.set(gTrial), f = ft);
    recent.push(f);
    if (recent.length > 10) recent.shift();
  }
  return { D, k, value: f, y: g.slice(), iterations: it };
}
