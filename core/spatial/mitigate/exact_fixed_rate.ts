/**
 * PROMIS-Exact for disjoint regions, the two pieces: the exact optimum for one fixed newP (greedy over
 * marginal gains) and a rigorous lower bound over an interval of newP (Lagrangian relaxation).
 *
 * Groups: the regions (individuals in no region have no unit, so no flips and no group: problem.ts).
 * For a fixed P' = newP the objective Σ_g φ_g(x_g, P'), x_g = positives of group g after the flips,
 * φ_g = l1_g - l0 (the raw statistic; 0 for groups with n = 0 or n = N), is separable and convex in
 * the integer x_g:
 *   φ_g(x) = [x ln x + (n-x) ln(n-x)] + [q ln q + (M-q) ln(M-q)] + const, q = P' - x, M = N - n,
 * a sum of x ln x terms of affine functions of x. Why the greedy is exact: write δ_g = a_g - b_g with
 * a_g, b_g ≥ 0 (up and down flips), cost G+_g(a) = φ_g(p+a) - φ_g(p) and G-_g(b) = φ_g(p-b) - φ_g(p),
 * both convex and 0 at 0. By convexity G+(a) + G-(b) ≥ φ(p+a-b) - φ(p) (the pair {p+a, p-b}
 * majorises {p+a-b, p}), with equality when min(a, b) = 0, so this split problem has the same optimum
 * as the original, and its solution maps to one at least as good using no more budget. In the split
 * problem, for a total of A up flips the best is the A smallest up marginals over all groups (each
 * group's marginals increase, so the A smallest form a prefix per group): F+(A) is convex in A, and
 * so is F-(B). With A - B = D and A + B ≤ C the cost F+(A) + F-(A - D) is convex in A: take the
 * forced |D| flips, then pairs (one up, one down) while the pair lowers the cost and the budget allows.
 */
import { KeyedHeap } from "./heap.ts";
import { type MitigationProblem, unitRegion } from "./problem.ts";

/** Per group (one per region): size, positives, flip capacities, and whether φ counts. */
export interface Groups {
  N: number;
  P: number;
  C: number;
  n: Int32Array;
  p: Int32Array;
  up: Int32Array;
  down: Int32Array;
  /** 1 when the group has a statistic (a region with 0 < n < N). */
  active: Uint8Array;
  /** x·ln x for 0..N (statistic.ts xlogxTable). */
  t: Float64Array;
}

/** Groups of a problem with disjoint regions. */
export function groupsOf(pr: MitigationProblem, t: Float64Array): Groups {
  const R = pr.n.length, n = pr.n.slice(), p = pr.p.slice(), up = new Int32Array(R), down = new Int32Array(R);
  // a frozen region has no units (no capacity); a capped one flips at most its cap either way (by
  // convexity one region never flips both ways, so capping each direction is the whole constraint)
  for (let u = 0; u < pr.unitSign.length; u++) {
    const g = unitRegion(pr, u), c = Math.min(pr.unitCount[u], pr.regionCap?.[g] ?? Infinity);
    if (pr.unitSign[u] > 0) up[g] = c;
    else down[g] = c;
  }
  const active = new Uint8Array(R);
  for (let g = 0; g < R; g++) active[g] = n[g] > 0 && n[g] < pr.N ? 1 : 0;
  return { N: pr.N, P: pr.P, C: pr.C, n, p, up, down, active, t };
}

/** The exact optimum at one D: positives per group, objective, and Lagrange multipliers (λ, μ ≥ 0). */
export interface FixedSolution {
  D: number;
  x: Int32Array;
  value: number;
  lambda: number;
  mu: number;
  /** True when the flips used the whole budget (within one: a pair no longer fits). */
  saturated: boolean;
  /** The split solution: positives after the up flips alone (xu) and after the down flips alone (xd). */
  xu: Int32Array;
  xd: Int32Array;
}

/** φ_g(x) - the x-free constant, from the table; Infinity outside x's feasible range at P'. */
export function phiPart(G: Groups, g: number, x: number, Pp: number): number {
  const n = G.n[g], M = G.N - n, q = Pp - x, t = G.t;
  if (x < 0 || x > n || q < 0 || q > M) return Infinity;
  return t[x] + t[n - x] + (t[q] + t[M - q]);
}

/** Objective Σ_g φ_g(x_g, P') (the raw statistics summed, each clamped at 0 like rawStat). */
export function objectiveOf(G: Groups, x: Int32Array, Pp: number): number {
  const t = G.t, N = G.N, l0 = t[Pp] + t[N - Pp] - t[N];
  let sum = 0;
  for (let g = 0; g < x.length; g++) {
    if (!G.active[g]) continue;
    const n = G.n[g], m = N - n, q = Pp - x[g];
    const s = t[x[g]] + t[n - x[g]] + (t[q] + t[m - q]) - (t[n] + t[m]) - l0;
    if (s > 0) sum += s;
  }
  return sum;
}

/** A point between two thresholds (either may be infinite), for the multipliers. */
export const mid = (lo: number, hi: number) =>
  Number.isFinite(lo) && Number.isFinite(hi)
    ? (lo + hi) / 2
    : Number.isFinite(lo)
    ? lo
    : Number.isFinite(hi)
    ? hi
    : 0;

/**
 * The exact optimum at newP = P + D (see the module comment), or null when no flips reach D or the
 * deadline (performance.now() ms) passes first.
 */
export function solveFixedD(G: Groups, D: number, deadline = Infinity): FixedSolution | null {
  if (Math.abs(D) > G.C) return null;
  const Pp = G.P + D, nG = G.n.length;
  const xu = G.p.slice(), xd = G.p.slice();
  const ups = new KeyedHeap(nG), downs = new KeyedHeap(nG);
  const upMarg = (g: number) => !G.active[g] ? 0 : phiPart(G, g, xu[g] + 1, Pp) - phiPart(G, g, xu[g], Pp);
  const downMarg = (g: number) => !G.active[g] ? 0 : phiPart(G, g, xd[g] - 1, Pp) - phiPart(G, g, xd[g], Pp);
  for (let g = 0; g < nG; g++) {
    if (G.up[g] > 0) ups.push(g, upMarg(g));
    if (G.down[g] > 0) downs.push(g, downMarg(g));
  }
  let lastUp = -Infinity, lastDown = -Infinity, used = 0, steps = 0;
  const stepUp = () => {
    const g = ups.topId();
    lastUp = ups.topKey();
    xu[g]++;
    ups.replaceTop(xu[g] - G.p[g] < G.up[g] ? upMarg(g) : Infinity);
  };
  const stepDown = () => {
    const g = downs.topId();
    lastDown = downs.topKey();
    xd[g]--;
    downs.replaceTop(G.p[g] - xd[g] < G.down[g] ? downMarg(g) : Infinity);
  };
  for (let k = 0; k < Math.abs(D); k++, used++) {
    if ((D > 0 ? ups.topKey() : downs.topKey()) === Infinity) return null;
    D > 0 ? stepUp() : stepDown();
  }
  while (used + 2 <= G.C && ups.topKey() + downs.topKey() < 0) {
    stepUp(), stepDown(), used += 2;
    if ((++steps & 4095) === 0 && performance.now() > deadline) return null;
  }
  const x = new Int32Array(nG);
  for (let g = 0; g < nG; g++) x[g] = xu[g] + xd[g] - G.p[g];
  // multipliers: thresholds θu between the last taken and next up marginal, θd likewise;
  // λ = (θu - θd)/2, μ = -(θu + θd)/2 (any λ and μ ≥ 0 give a valid bound; these make it tight)
  const thetaU = mid(lastUp, ups.topKey()), thetaD = mid(lastDown, downs.topKey());
  return {
    D,
    x,
    value: objectiveOf(G, x, Pp),
    lambda: (thetaU - thetaD) / 2,
    mu: Math.max(0, -(thetaU + thetaD) / 2),
    saturated: used + 2 > G.C,
    xu,
    xd,
  };
}

/**
 * min over integer x ∈ [xl, xh] and real P' ∈ [lo, hi] (integers, with 0 ≤ P' - x ≤ N - n) of
 * φ(x, P') - λ(x - p) + μ|x - p|, for a region of n among N (t: the x·ln x table). For each x the
 * best P' is x·N/n clamped to the interval (φ is jointly convex, and convex in P' with its minimum 0
 * where the rates agree): inside, φ = 0; clamped, P' is an interval end, an integer, so φ comes
 * from the table without a logarithm. The result is convex in x, minimised by a binary search on
 * its differences. Infinity when no x fits.
 */
export function regionBound(
  t: Float64Array,
  n: number,
  N: number,
  p: number,
  xl: number,
  xh: number,
  lo: number,
  hi: number,
  lambda = 0,
  mu = 0,
  hint = p,
): number {
  const M = N - n, base = t[n] + t[M] - t[N];
  xl = Math.max(xl, lo - M, 0), xh = Math.min(xh, hi, n);
  if (xl > xh) return Infinity;
  const f = (x: number) => {
    const L = Math.max(lo, x), H = Math.min(hi, x + M), star = (x * N) / n;
    let phi = 0;
    if (!(star > L && star < H)) {
      const Pp = star <= L ? L : H, q = Pp - x;
      phi = t[x] + t[n - x] + (t[q] + t[M - q]) - base - (t[Pp] + t[N - Pp]);
    }
    return phi - lambda * (x - p) + mu * Math.abs(x - p);
  };
  if (lambda === 0 && mu === 0) {
    // f is 0 on x ∈ [n·lo/N, n·hi/N] and convex, so its integer minimum is at the integers next to that
    const x1 = Math.min(xh, Math.max(xl, Math.floor((n * lo) / N))),
      x2 = Math.min(xh, Math.max(xl, Math.ceil((n * hi) / N)));
    return x1 === x2 ? f(x1) : x2 - x1 > 1 ? 0 : Math.min(f(x1), f(x2));
  }
  return f(firstRise(f, xl, xh, Math.min(xh, Math.max(xl, hint))));
}

/**
 * The smallest x in [xl, xh] where the convex f stops falling (f(x+1) ≥ f(x), or x = xh), searched
 * outward from `h` in doubling steps and then by bisection: a hint at the minimiser costs four values.
 */
function firstRise(f: (x: number) => number, xl: number, xh: number, h: number): number {
  const rising = (x: number) => x >= xh || f(x + 1) - f(x) >= 0;
  let a: number, b: number; // rising(b), and every x < a is not rising
  if (rising(h)) {
    (b = h, a = xl);
    for (let step = 1; b - step >= xl; step *= 2) {
      if (!rising(b - step)) {
        a = b - step + 1;
        break;
      }
      b -= step;
    }
  } else {
    (a = h + 1, b = xh);
    for (let step = 1; a - 1 + step < xh; step *= 2) {
      if (rising(a - 1 + step)) {
        b = a - 1 + step;
        break;
      }
      a += step;
    }
  }
  while (a < b) {
    const m = (a + b) >> 1;
    if (rising(m)) b = m;
    else a = m + 1;
  }
  return a;
}

/**
 * A lower bound of the objective over every D in [d1, d2] (Lagrangian relaxation of Σ(x - p) = D
 * with λ and of Σ|x - p| ≤ C with μ ≥ 0, and P' relaxed to the real interval):
 *   Σ_g min_{x, P'} [φ_g(x, P') - λ(x - p_g) + μ|x - p_g|] + min_{D} λD - μC.
 */
export function lowerBound(
  G: Groups,
  d1: number,
  d2: number,
  lambda: number,
  mu: number,
  hint?: Int32Array,
): number {
  const lo = G.P + d1, hi = G.P + d2, C = G.C;
  let sum = (lambda >= 0 ? lambda * d1 : lambda * d2) - mu * C;
  for (let g = 0; g < G.n.length; g++) {
    const p = G.p[g], xl = p - Math.min(G.down[g], C), xh = p + Math.min(G.up[g], C);
    if (G.active[g]) {
      sum += regionBound(G.t, G.n[g], G.N, p, xl, xh, lo, hi, lambda, mu, hint ? hint[g] : p);
    } else {
      const lin = (x: number) => -lambda * (x - p) + mu * Math.abs(x - p);
      sum += Math.min(lin(xl), lin(xh), 0);
    }
  }
  return sum;
}
