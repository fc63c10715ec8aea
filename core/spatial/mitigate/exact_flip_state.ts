/**
 * The local search's state over integer flips (exact_local.ts, exact_exchange.ts): the flips, what they
 * make of every region, and the caps (max_flips_per_region) they leave, kept together so that every move
 * changes all of them at once.
 */
import { capsLeft, exactObjective, positivesAfter } from "./exact_objective.ts";
import type { MitigationProblem } from "./problem.ts";

/**
 * Flips, positives per region, D, flips used, the objective at P' - 1, P', P' + 1, and the flips each
 * region may still take (max_flips_per_region; a large number without caps).
 */
export interface FlipState {
  k: Int32Array;
  x: Int32Array;
  D: number;
  used: number;
  at: [number, number, number];
  capLeft: Int32Array;
}

/** True when unit u can take dk more flips (dk ≤ 0 always can) within every region's cap. */
export function capsAllow(pr: MitigationProblem, s: FlipState, u: number, dk: number): boolean {
  if (dk <= 0 || !pr.regionCap) return true;
  for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
    if (s.capLeft[pr.unitRegions[r]] < dk) return false;
  }
  return true;
}

/** Unit u's regions after dk more of its flips: caps used (none to keep without caps). */
export function takeCaps(pr: MitigationProblem, s: FlipState, u: number, dk: number): void {
  if (!pr.regionCap) return;
  for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) s.capLeft[pr.unitRegions[r]] -= dk;
}

/** The objective at newP = P + D (t: statistic.ts xlogxTable(N)), Infinity where D is outside the window. */
export function objectiveAt(pr: MitigationProblem, t: Float64Array, x: Int32Array, D: number): number {
  return D < pr.dMin || D > pr.dMax ? Infinity : exactObjective(pr, t, x, pr.P + D);
}

/** The state of integer flips k (within the budget and the caps; copied). */
export function flipState(pr: MitigationProblem, t: Float64Array, k: Int32Array): FlipState {
  const { x, D, used } = positivesAfter(pr, k);
  const at: [number, number, number] = [
    objectiveAt(pr, t, x, D - 1),
    exactObjective(pr, t, x, pr.P + D),
    objectiveAt(pr, t, x, D + 1),
  ];
  const s: FlipState = { k: k.slice(), x, D, used, at, capLeft: capsLeft(pr) };
  for (let u = 0; u < k.length; u++) if (k[u]) takeCaps(pr, s, u, k[u]);
  return s;
}
