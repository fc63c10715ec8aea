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
  /** B(P + D) at index D - dMin (Infinity where no count is reachable). */
  perD: Float64Array;
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
 * min over D in [dMin, dMax] of B(P + D) (t: statistic.ts xlogxTable(N)), and B at every D. Each term is the
 * region's smallest value over its integers at one P' (regionBound with lo = hi = P': the two integers beside
 * n_i·P'/N, clamped to its reach), so the whole window costs (dMax - dMin + 1) × R such pairs.
 */
export function rateBound(pr: MitigationProblem, t: Float64Array): RateBound {
  const { up, down } = regionCapacities(pr), R = pr.n.length, N = pr.N;
  const perD = new Float64Array(pr.dMax - pr.dMin + 1);
  let bound = Infinity, dBest: number | null = null;
  for (let D = pr.dMin; D <= pr.dMax; D++) {
    const Pp = pr.P + D;
    let sum = 0;
    for (let i = 0; i < R && sum < Infinity; i++) {
      const n = pr.n[i];
      if (n === 0 || n === N) continue;
      sum += regionBound(t, n, N, pr.p[i], pr.p[i] - down[i], pr.p[i] + up[i], Pp, Pp);
    }
    perD[D - pr.dMin] = sum;
    if (sum < bound) (bound = sum, dBest = D);
  }
  // every term is clamped at 0, so 0 bounds it too (the tables leave 1e-15 below)
  return { bound: dBest === null ? Infinity : Math.max(0, bound), dBest, perD };
}
