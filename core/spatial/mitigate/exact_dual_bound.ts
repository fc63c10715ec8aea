/**
 * A Lagrangian lower bound of PROMIS-Exact over overlapping regions that sees the budget
 * (docs/spatial-fairness.md "Where the budget binds"). Any integer flips k with newP = P' give
 *   objective = Σ_i φ_i(z_i, P'),  z_i = p_i + Σ_{u∋i} s_u k_u,  Σ k ≤ C,  P' = P + Σ s_u k_u,
 * so for any multipliers y (per region), λ ≥ 0 (budget) and μ (newP) the objective is at least
 *   g(P') = Σ_i min_{z ∈ Z_i(P')} [φ_i(z, P') - y_i z] + Σ_i y_i p_i - λC + μ(P - P')
 *           + Σ_u count_u · min(0, s_u (Σ_{i∋u} y_i + μ) + λ),
 * Z_i(P') being the integers region i can reach (as exact_rate_bound.ts counts them), and the optimum is at
 * least min over the window of g (weak duality: every dropped term is ≥ 0 at a feasible point). With y = 0
 * and λ = μ = 0 this is exact_rate_bound.ts's B(P'); with y = φ'(z) at the continuous relaxation's optimum
 * of one D (exact_relaxation.ts) it reaches that relaxation's value there, and it lets every other D be
 * bounded by whichever multiplier set bounds it best.
 */
import { regionTerm } from "./exact_objective.ts";
import { regionCapacities } from "./exact_rate_bound.ts";
import type { MitigationProblem } from "./problem.ts";

/** One multiplier set: y per region, and the budget's λ ≥ 0 and newP's μ. */
export interface Multipliers {
  y: Float64Array;
  lambda: number;
  mu: number;
}

/** Σ_u count_u · min(0, s_u (w_u + μ) + λ): the units' part of g (w_u = Σ_{i∋u} y_i). */
function unitPart(pr: MitigationProblem, w: Float64Array, lambda: number, mu: number): number {
  let s = 0;
  for (let u = 0; u < w.length; u++) {
    const c = pr.unitSign[u] * (w[u] + mu) + lambda;
    if (c < 0) s += pr.unitCount[u] * c;
  }
  return s;
}

/** y with 0 for regions without a statistic (n = 0 or N): they have no term to carry a multiplier. */
function activeY(pr: MitigationProblem, y: Float64Array): Float64Array {
  return y.map((v, i) => (pr.n[i] > 0 && pr.n[i] < pr.N ? v : 0));
}

/** w_u = Σ_{i∋u} y_i per unit. */
function unitSums(pr: MitigationProblem, y: Float64Array): Float64Array {
  const w = new Float64Array(pr.unitSign.length);
  for (let u = 0; u < w.length; u++) {
    let s = 0;
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) s += y[pr.unitRegions[r]];
    w[u] = s;
  }
  return w;
}

/** The maximiser of a concave f on [a, b] by ternary search. */
function argmaxConcave(f: (v: number) => number, a: number, b: number, steps = 60): number {
  for (let k = 0; k < steps; k++) {
    const m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;
    f(m1) < f(m2) ? (a = m1) : (b = m2);
  }
  return (a + b) / 2;
}

/**
 * λ ≥ 0 and μ that make g largest at newP = P + D for these y (the units' part minus λC plus μ(P - P') is
 * concave in both; the region part does not depend on them). Any values keep the bound valid.
 */
export function budgetMultipliers(pr: MitigationProblem, relaxed: Float64Array, D: number): Multipliers {
  const y = activeY(pr, relaxed), w = unitSums(pr, y);
  let span = 1;
  for (const v of y) span += Math.abs(v);
  // a_u = s_u (w_u + μ): up units in the order of w, down units in the order of -w, whatever μ
  const all = Int32Array.from(w.keys()), key = (u: number) => pr.unitSign[u] * w[u];
  const up = all.filter((u) => pr.unitSign[u] > 0).sort((p, q) => key(p) - key(q));
  const down = all.filter((u) => pr.unitSign[u] < 0).sort((p, q) => key(p) - key(q));
  // for one μ, the best λ exactly: the units' slope Σ_{a_u < -λ} count_u falls to C there
  const bestLambda = (mu: number) => {
    let i = 0, j = 0, cum = 0;
    while (i < up.length || j < down.length) {
      const au = i < up.length ? key(up[i]) + mu : Infinity,
        ad = j < down.length ? key(down[j]) - mu : Infinity;
      const u = au <= ad ? up[i++] : down[j++], a = Math.min(au, ad);
      if (a >= 0) break;
      if (cum + pr.unitCount[u] > pr.C) return -a;
      cum += pr.unitCount[u];
    }
    return 0;
  };
  const h = (lambda: number, mu: number) => unitPart(pr, w, lambda, mu) - lambda * pr.C - mu * D;
  const mu = argmaxConcave((m) => h(bestLambda(m), m), -span, span);
  return { y, lambda: bestLambda(mu), mu };
}

/** min over integers z of region i's reach at P' of φ_i(z, P') - y z (e = exp(y); convex: by the real root). */
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
  // φ'(z) = y ⇔ (1 - e) z² + (M - P' + e(n + P')) z - e n P' = 0, e = exp(y): its root in [0, min(n, P')]
  const b = M - Pp + e * (n + Pp), c = e * n * Pp;
  const root = c > 0 ? (2 * c) / (b + Math.sqrt(Math.max(0, b * b + 4 * (1 - e) * c))) : 0;
  const z1 = Math.min(hi, Math.max(lo, Math.floor(root))), z2 = Math.min(hi, z1 + 1);
  return Math.min(regionTerm(pr, t, i, z1, Pp) - y * z1, regionTerm(pr, t, i, z2, Pp) - y * z2);
}

/**
 * g(P + D) for every D in [dMin, dMax] under one multiplier set, into `out` (index D - dMin), until
 * `deadline` (performance.now() ms): the D not reached by then, and those `wanted` turns down, get
 * -Infinity (no bound). A term that cannot be reached makes g infinite (no flips reach that newP).
 */
export function dualValues(
  pr: MitigationProblem,
  t: Float64Array,
  m: Multipliers,
  out: Float64Array,
  deadline = Infinity,
  wanted: (j: number) => boolean = () => true,
): void {
  out.fill(-Infinity);
  const { up, down } = regionCapacities(pr), R = pr.n.length, N = pr.N;
  const y = activeY(pr, m.y), w = unitSums(pr, y), e = y.map((v) => Math.exp(Math.max(-50, Math.min(50, v))));
  let constant = unitPart(pr, w, m.lambda, m.mu) - m.lambda * pr.C + m.mu * pr.P;
  for (let i = 0; i < R; i++) constant += y[i] * pr.p[i];
  for (let D = pr.dMin; D <= pr.dMax; D++) {
    if (((D - pr.dMin) & 63) === 0 && performance.now() > deadline) return;
    if (!wanted(D - pr.dMin)) continue;
    const Pp = pr.P + D;
    let s = constant - m.mu * Pp;
    for (let i = 0; i < R; i++) {
      const n = pr.n[i];
      if (n === 0 || n === N) continue;
      s += regionMin(pr, t, i, y[i], e[i], Pp, pr.p[i] - down[i], pr.p[i] + up[i]);
    }
    out[D - pr.dMin] = s;
  }
}
