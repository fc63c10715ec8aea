/**
 * A Lagrangian lower bound of PROMIS-Exact over overlapping regions that sees the budget
 * (docs/spatial-fairness.md "Where the budget binds"). Any integer flips k with newP = P + D give
 *   objective = Σ_i φ_i(z_i, P'),  z_i = p_i + Σ_{u∋i} s_u k_u,
 * and for any multipliers y (one per region) that equals
 *   Σ_i [φ_i(z_i, P') - y_i z_i] + Σ_i y_i p_i + Σ_u s_u w_u k_u,   w_u = Σ_{i∋u} y_i,
 * so it is at least
 *   g(D) = Σ_i min_{z ∈ Z_i(P')} [φ_i(z, P') - y_i z] + Σ_i y_i p_i + min { Σ_u s_u w_u k_u : k ∈ K(D) },
 * Z_i(P') being the integers region i can reach (as exact_rate_bound.ts counts them) and K(D) the real flips
 * in each unit's box with Σ k ≤ C and Σ s k = D: the regions and the flips are taken apart, each at its
 * best. The flips' part is a knapsack solved exactly by prefix sums (the cheapest flips of each direction
 * first). With y = 0 this is exact_rate_bound.ts's B(P'); with y = φ'(z) at the continuous relaxation's
 * optimum of one D (exact_relaxation.ts) it reaches that relaxation's value there, and nearby D lose little.
 */
import { regionTerm } from "./exact_objective.ts";
import { regionCapacities } from "./exact_rate_bound.ts";
import type { MitigationProblem } from "./problem.ts";

/** y with 0 for regions without a statistic (n = 0 or N): they have no term to carry a multiplier. */
function activeY(pr: MitigationProblem, y: Float64Array): Float64Array {
  return y.map((v, i) => (pr.n[i] > 0 && pr.n[i] < pr.N ? v : 0));
}

/**
 * The cheapest total cost of K flips of one direction, as a function of real K: the units sorted by their
 * cost per flip, then prefix sums of counts and costs (convex and piecewise linear in K; Infinity past the
 * direction's capacity).
 */
function cheapestFlips(pr: MitigationProblem, units: number[], cost: (u: number) => number) {
  units.sort((a, b) => cost(a) - cost(b));
  const m = units.length, count = new Float64Array(m + 1), total = new Float64Array(m + 1);
  for (let j = 0; j < m; j++) {
    count[j + 1] = count[j] + pr.unitCount[units[j]];
    total[j + 1] = total[j] + pr.unitCount[units[j]] * cost(units[j]);
  }
  return (K: number): number => {
    if (K > count[m] + 1e-9) return Infinity;
    let lo = 0, hi = m; // the last j with count[j] ≤ K
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      count[mid] <= K ? (lo = mid) : (hi = mid - 1);
    }
    return lo === m ? total[m] : total[lo] + (K - count[lo]) * cost(units[lo]);
  };
}

/**
 * min { Σ_u s_u w_u k_u : 0 ≤ k_u ≤ count_u, Σ k ≤ C, Σ s k = D } for every D as a function: up flips
 * K⁺ = (T + D)/2 and down flips K⁻ = (T - D)/2 for a total T in [|D|, C], the cost convex in T (each
 * direction's cheapest-first cost is), so a ternary search over T finds it (less a margin for its tolerance,
 * so that the bound stays a bound).
 */
function flipsPart(pr: MitigationProblem, w: Float64Array): (D: number) => number {
  const up: number[] = [], down: number[] = [];
  for (let u = 0; u < w.length; u++) (pr.unitSign[u] > 0 ? up : down).push(u);
  const upCost = cheapestFlips(pr, up, (u) => w[u]), downCost = cheapestFlips(pr, down, (u) => -w[u]);
  let steepest = 0;
  for (const v of w) steepest = Math.max(steepest, Math.abs(v));
  return (D: number) => {
    if (Math.abs(D) > pr.C) return Infinity;
    const cost = (T: number) => upCost((T + D) / 2) + downCost((T - D) / 2);
    let a = Math.abs(D), b = Math.max(a, pr.C);
    for (let k = 0; k < 100 && b - a > 1e-9; k++) {
      const m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;
      cost(m1) <= cost(m2) ? (b = m2) : (a = m1);
    }
    // the cost moves by at most max |w| a unit of T, and the search ends with b - a apart
    return Math.min(cost(a), cost((a + b) / 2), cost(b)) - steepest * (b - a + 1e-12);
  };
}

/**
 * min over integers z of region i's reach at P' of φ_i(z, P') - y z (e = exp(y)): convex in z, so the
 * integers beside the real root of φ'(z) = y, then a descent to whichever neighbour is lower, so that a root
 * the floating point misplaces (a very negative y) still ends at the minimum and the bound stays a bound.
 */
function regionMin(
  pr: MitigationProblem,
  t: Float64Array,
  i: number,
  y: number,
  e: number,
  Pp: number,
  reachLo: number,
  reachHi: number,
): number {
  const n = pr.n[i], M = pr.N - n;
  const lo = Math.max(reachLo, Pp - M, 0), hi = Math.min(reachHi, Pp, n);
  if (lo > hi) return Infinity;
  // φ'(z) = y ⇔ (1 - e) z² + b z - c = 0, b = M - P' + e(n + P'), c = e n P': its root in [0, min(n, P')],
  // in the form that does not cancel for b's sign
  const b = M - Pp + e * (n + Pp), c = e * n * Pp, s = Math.sqrt(Math.max(0, b * b + 4 * (1 - e) * c));
  const root = c <= 0 ? 0 : b >= 0 ? (2 * c) / (b + s) : (s - b) / (2 * (1 - e));
  const f = (z: number) => regionTerm(pr, t, i, z, Pp) - y * z;
  let z = Math.min(hi, Math.max(lo, Number.isFinite(root) ? Math.floor(root) : lo)), v = f(z);
  if (z < hi && f(z + 1) < v) v = f(++z);
  const dz = z > lo && f(z - 1) < v ? -1 : 1;
  for (let w = f(z + dz); z + dz >= lo && z + dz <= hi && w < v; w = f(z + dz)) (v = w, z += dz);
  return v;
}

/** g(D) under multipliers y as a function of D (Infinity where no flips reach D). */
function dualAt(pr: MitigationProblem, t: Float64Array, multipliers: Float64Array): (D: number) => number {
  const { up, down } = regionCapacities(pr), R = pr.n.length, N = pr.N, U = pr.unitSign.length;
  const y = activeY(pr, multipliers), e = y.map((v) => Math.exp(Math.max(-50, Math.min(50, v))));
  const w = new Float64Array(U);
  for (let u = 0; u < U; u++) {
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) w[u] += y[pr.unitRegions[r]];
  }
  const flips = flipsPart(pr, w);
  let constant = 0;
  for (let i = 0; i < R; i++) constant += y[i] * pr.p[i];
  return (D: number) => {
    const Pp = pr.P + D;
    let s = constant + flips(D);
    for (let i = 0; i < R && s < Infinity; i++) {
      const n = pr.n[i];
      if (n === 0 || n === N) continue;
      s += regionMin(pr, t, i, y[i], e[i], Pp, pr.p[i] - down[i], pr.p[i] + up[i]);
    }
    return s;
  };
}

/**
 * g(D) for every D in [dMin, dMax] under multipliers y, into `out` (index D - dMin), until `deadline`
 * (performance.now() ms): the D not reached by then, and those `wanted` turns down, get -Infinity (no
 * bound). A D no flips reach gets Infinity.
 */
export function dualValues(
  pr: MitigationProblem,
  t: Float64Array,
  multipliers: Float64Array,
  out: Float64Array,
  deadline = Infinity,
  wanted: (j: number) => boolean = () => true,
): void {
  out.fill(-Infinity);
  const g = dualAt(pr, t, multipliers);
  for (let D = pr.dMin; D <= pr.dMax; D++) {
    if (((D - pr.dMin) & 63) === 0 && performance.now() > deadline) return;
    if (wanted(D - pr.dMin)) out[D - pr.dMin] = g(D);
  }
}

/** A run of D this long where multipliers solved at one D no longer raise the bound ends their reach. */
const REACH_END = 200;

/**
 * Raises `env` (index D - dMin; only upward) by g(D) under multipliers y solved at D0, walking out from D0
 * each way until REACH_END D in a row gain nothing or `deadline` passes: multipliers fitted to one D bound
 * its neighbours and lose to B(P') a few hundred D away, so the rest of the window is not worth their cost.
 */
export function raiseAround(
  pr: MitigationProblem,
  t: Float64Array,
  multipliers: Float64Array,
  D0: number,
  env: Float64Array,
  deadline = Infinity,
): void {
  const g = dualAt(pr, t, multipliers);
  for (const dir of [1, -1]) {
    let idle = 0;
    for (let D = dir > 0 ? D0 : D0 - 1; D >= pr.dMin && D <= pr.dMax && idle < REACH_END; D += dir) {
      if ((D & 31) === 0 && performance.now() > deadline) return;
      const v = g(D), j = D - pr.dMin;
      v > env[j] ? (env[j] = v, idle = 0) : idle++;
    }
  }
}
