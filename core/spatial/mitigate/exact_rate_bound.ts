/**
 * A lower bound of PROMIS-Exact over overlapping regions that counts integrality: for any integer flips,
 * newP = P' is one integer of the window and every region's positive count x_i an integer it can reach
 * (p_i minus at most its down capacity, plus at most its up capacity, each capped by the budget C), so
 *   objective ≥ B(P') = Σ_i min over those integers x of the term φ_i(x, P')
 * and the optimum is ≥ min over the window of B(P'). The real-valued relaxation lets every region sit
 * exactly at the overall rate and bounds ~0; the integers cannot, and on a scan design of thousands of
 * regions the rounding residues are the optimum's whole size. B(P') is also where the incumbent's search
 * starts (exact_start.ts): the P' of the smallest B.
 */
import { regionBound } from "./exact_fixed_rate.ts";
import type { MitigationProblem } from "./problem.ts";

/** The bound over the window, the D = P' - P where it is reached (null when no D can be), and B per D. */
export interface RateBound {
  bound: number;
  dBest: number | null;
  /** B(P + D) at index D - dMin for every D (Infinity where no count is reachable); the same array each call. */
  perD: () => Float64Array;
}

/** Per region, the members that can flip up and down (each capped at the budget C and the region's cap). */
export function regionCapacities(pr: MitigationProblem): { up: Int32Array; down: Int32Array } {
  const R = pr.n.length, up = new Int32Array(R), down = new Int32Array(R);
  for (let u = 0; u < pr.unitSign.length; u++) {
    const into = pr.unitSign[u] > 0 ? up : down;
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      into[pr.unitRegions[r]] += pr.unitCount[u];
    }
  }
  for (let i = 0; i < R; i++) {
    const most = Math.min(pr.C, pr.regionCap?.[i] ?? Infinity);
    (up[i] = Math.min(up[i], most), down[i] = Math.min(down[i], most));
  }
  return { up, down };
}

/**
 * min over D in [dMin, dMax] of B(P + D) (t: statistic.ts xlogxTable(N)), and where it is reached. Each term is
 * the region's smallest value over its integers at one P' (regionBound with lo = hi = P': the two integers
 * beside n_i·P'/N, clamped to its reach), so the whole window costs (dMax - dMin + 1) × R such pairs; a D's
 * sum stops once it reaches the least so far (terms are never negative), and `perD` finishes those sums
 * when a caller wants B at every D.
 */
export function rateBound(pr: MitigationProblem, t: Float64Array): RateBound {
  const { up, down } = regionCapacities(pr), R = pr.n.length, N = pr.N, W = pr.dMax - pr.dMin + 1;
  const sums = new Float64Array(W), reached = new Int32Array(W);
  // region i's term at D, added to D's sum
  const add = (j: number, i: number) => {
    const n = pr.n[i], Pp = pr.P + pr.dMin + j;
    if (n > 0 && n < N) sums[j] += regionBound(t, n, N, pr.p[i], pr.p[i] - down[i], pr.p[i] + up[i], Pp, Pp);
  };
  let bound = Infinity, dBest: number | null = null;
  for (let j = 0; j < W; j++) {
    let i = 0;
    for (; i < R && sums[j] < bound; i++) add(j, i);
    reached[j] = i;
    if (sums[j] < bound) (bound = sums[j], dBest = pr.dMin + j);
  }
  let whole: Float64Array | null = null;
  const perD = () => {
    for (let j = 0; !whole && j < W; j++) {
      for (let i = reached[j]; i < R && sums[j] < Infinity; i++) add(j, i);
    }
    return (whole = sums);
  };
  // every term is clamped at 0, so 0 bounds it too (the tables leave 1e-15 below)
  return { bound: dBest === null ? Infinity : Math.max(0, bound), dBest, perD };
}
