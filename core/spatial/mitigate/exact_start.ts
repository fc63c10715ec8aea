/**
 * Where PROMIS-Exact over many overlapping units starts: a bound that counts integrality
 * (exact_rate_bound.ts) and an incumbent near it. The incumbent is the flips of the real-valued zero-gap
 * solution at the D of the smallest bound (every region at the overall rate there), rounded, then
 * improved by local search (exact_local.ts); when no zero-gap point fits the budget, the rounded
 * PROMIS-Approx solution takes its place, as before. The depth-first search (exact_overlapping.ts) then
 * gets what is left of the work limit.
 */
import { approxRows, withinCaps } from "./approx_bound.ts";
import { solveApprox } from "./approx.ts";
import { improveFlips } from "./exact_local.ts";
import { rateBound } from "./exact_rate_bound.ts";
import { unitFlipCounts } from "./flips.ts";
import type { MitigationProblem } from "./problem.ts";
import { hasSolution, type OnProgress } from "./status.ts";
import { solveZeroGap } from "./zero_gap.ts";

/** The search's start: flips (null if none was found), the bound over every integer solution, seconds. */
export interface ExactStart {
  start: Int32Array | null;
  bound: number;
  seconds: number;
}

/** Shares of the work limit: the zero-gap or approx solve, and the local search (both ends counted from t0). */
const SEED_SHARE = 0.5, LOCAL_SHARE = 0.8;

/** The bound and the improved incumbent of `pr` (t: statistic.ts xlogxTable(N)) within the work limit. */
export async function exactStart(
  pr: MitigationProblem,
  t: Float64Array,
  workLimitSeconds: number,
  onProgress?: OnProgress,
): Promise<ExactStart> {
  const t0 = performance.now(), limit = workLimitSeconds * 1000;
  const seconds = () => (performance.now() - t0) / 1000;
  const { bound, dBest } = rateBound(pr, t);
  if (dBest === null) return { start: null, bound, seconds: seconds() };
  onProgress?.({ phase: "exact search", objective: null, bound });
  let start: Int32Array | null = null;
  const fixed = { ...pr, dMin: dBest, dMax: dBest };
  const rows = approxRows(fixed), zero = solveZeroGap(fixed, rows, t0 + SEED_SHARE * limit);
  // least squares knows no caps (max_flips_per_region): its flips serve only where they keep them
  if (zero && withinCaps(rows, fixed, zero.x)) start = unitFlipCounts(fixed, zero.x);
  else {
    const left = Math.max(1e-3, SEED_SHARE * workLimitSeconds - seconds());
    const approx = await solveApprox(pr, left, onProgress);
    if (approx.unitDelta && hasSolution(approx.status)) start = unitFlipCounts(pr, approx.unitDelta);
  }
  if (start) {
    const better = improveFlips(pr, t, start, t0 + LOCAL_SHARE * limit);
    start = better.k;
    onProgress?.({ phase: "exact search", objective: better.objective, bound });
  }
  return { start, bound, seconds: seconds() };
}
