/**
 * Where PROMIS-Exact over many overlapping units starts: a bound that counts integrality
 * (exact_rate_bound.ts) and an incumbent near it. The incumbent is the flips of the real-valued zero-gap
 * solution at the D of the smallest bound (every region at the overall rate there), rounded, then
 * improved by local search (exact_local.ts). When no zero-gap point fits the budget, the budget binds:
 * the rounded PROMIS-Approx solution and the rounded continuous relaxation (exact_budget.ts, whose
 * Lagrangian bound also sees the budget) compete for the start. The depth-first search
 * (exact_overlapping.ts) then gets what is left of the work limit.
 */
import { approxRows, withinCaps } from "./approx_bound.ts";
import { solveApprox } from "./approx.ts";
import { budgetStart } from "./exact_budget.ts";
import { improveFlips } from "./exact_local.ts";
import { capsKept, exactObjective, positivesAfter } from "./exact_objective.ts";
import { rateBound } from "./exact_rate_bound.ts";
import { unitFlipCounts } from "./flips.ts";
import type { MitigationProblem } from "./problem.ts";
import { hasSolution, type OnProgress } from "./status.ts";
import { solveZeroGap } from "./zero_gap.ts";

/** The candidate flips of lowest objective among those that keep the budget, the window and the caps. */
function bestOf(
  pr: MitigationProblem,
  t: Float64Array,
  candidates: (Int32Array | null)[],
): { k: Int32Array | null; value: number } {
  let best: Int32Array | null = null, value = Infinity;
  for (const k of candidates) {
    if (!k) continue;
    const { x, D, used } = positivesAfter(pr, k);
    if (used > pr.C || D < pr.dMin || D > pr.dMax || !capsKept(pr, k)) continue;
    const v = exactObjective(pr, t, x, pr.P + D);
    if (v < value) (best = k, value = v);
  }
  return { k: best, value };
}

/** The search's start: flips (null if none was found), the bound over every integer solution, seconds. */
export interface ExactStart {
  start: Int32Array | null;
  bound: number;
  seconds: number;
}

/**
 * Shares of the work limit, each an end counted from t0: the zero-gap or approx solve; where the budget
 * binds, then the relaxations (exact_budget.ts); the local search.
 */
const SEED_SHARE = 0.5, RELAX_SHARE = 0.7, LOCAL_SHARE = 0.9;

/** The bound and the improved incumbent of `pr` (t: statistic.ts xlogxTable(N)) within the work limit. */
export async function exactStart(
  pr: MitigationProblem,
  t: Float64Array,
  workLimitSeconds: number,
  onProgress?: OnProgress,
): Promise<ExactStart> {
  const t0 = performance.now(), limit = workLimitSeconds * 1000;
  const seconds = () => (performance.now() - t0) / 1000;
  const rate = rateBound(pr, t), dBest = rate.dBest;
  let bound = rate.bound;
  if (dBest === null) return { start: null, bound, seconds: seconds() };
  onProgress?.({ phase: "exact search", objective: null, bound });
  let start: Int32Array | null = null;
  const fixed = { ...pr, dMin: dBest, dMax: dBest };
  const rows = approxRows(fixed), zero = solveZeroGap(fixed, rows, t0 + SEED_SHARE * limit);
  // least squares knows no caps (max_flips_per_region): its flips serve only where they keep them
  if (zero && withinCaps(rows, fixed, zero.x)) start = unitFlipCounts(fixed, zero.x);
  else {
    // the budget binds: approx gives one incumbent; then relaxations bound what B(P') cannot, and give another
    const left = Math.max(1e-3, SEED_SHARE * workLimitSeconds - seconds());
    const approx = await solveApprox(pr, left, onProgress);
    const candidates: (Int32Array | null)[] = [];
    if (approx.unitDelta && hasSolution(approx.status)) candidates.push(unitFlipCounts(pr, approx.unitDelta));
    if (t0 + RELAX_SHARE * limit - performance.now() >= 1000) {
      const upper = bestOf(pr, t, candidates).value;
      const relaxed = budgetStart(pr, t, t0 + RELAX_SHARE * limit, upper);
      bound = Math.max(bound, relaxed.bound);
      candidates.push(relaxed.start);
      onProgress?.({ phase: "exact search", objective: null, bound });
    }
    start = bestOf(pr, t, candidates).k;
  }
  if (start) {
    const better = improveFlips(pr, t, start, t0 + LOCAL_SHARE * limit);
    start = better.k;
    onProgress?.({ phase: "exact search", objective: better.objective, bound });
  }
  return { start, bound, seconds: seconds() };
}
