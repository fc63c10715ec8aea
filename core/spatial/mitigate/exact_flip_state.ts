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

/** Unit u takes dk more flips (dk < 0: gives them back): its regions, D, flips used and caps follow. */
export function takeFlips(pr: MitigationProblem, s: FlipState, u: number, dk: number): void {
  const d = pr.unitSign[u] * dk;
  for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) s.x[pr.unitRegions[r]] += d;
  (s.k[u] += dk, s.D += d, s.used += dk);
  takeCaps(pr, s, u, dk);
}

/**
 * Calls f(i, c) for each region whose positives change when u's regions move by du and v's by dv (a region
 * of both by du + dv, skipped when that is 0): one walk over the two ascending region lists (buildProblem
 * keeps them so). v = -1: u alone.
 */
export function eachChanged(
  pr: MitigationProblem,
  u: number,
  du: number,
  v: number,
  dv: number,
  f: (i: number, c: number) => void,
): void {
  const R = pr.unitRegions, aEnd = pr.unitRegStart[u + 1], bEnd = v < 0 ? 0 : pr.unitRegStart[v + 1];
  let a = pr.unitRegStart[u], b = v < 0 ? 0 : pr.unitRegStart[v];
  while (a < aEnd || b < bEnd) {
    if (b === bEnd || (a < aEnd && R[a] < R[b])) f(R[a++], du);
    else if (a === aEnd || R[b] < R[a]) f(R[b++], dv);
    else {
      if (du + dv !== 0) f(R[a], du + dv);
      (a++, b++);
    }
  }
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
