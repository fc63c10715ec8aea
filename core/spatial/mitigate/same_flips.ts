/**
 * A frontier's budgets past the zero gap (services/mitigation/frontier.ts). Approx flips that reach 0 under
 * one budget are optimal under every budget they fit (0 is a bound of any budget), and the approx solver
 * started from them returns them as they are (approx_columns.ts). So such a point's answer is the other
 * budget's with its own flip budget and window of newP: the same flips, objective, predictions and
 * metrics, without building and solving the problem again.
 */
import { flipBudget, rateWindow } from "./problem.ts";
import type { RelabelResult } from "./relabel.ts";
import { solverStatus, WARM_FIT } from "./status.ts";

/** Whether `r` is an approx answer optimal at 0 whose flips fit `budget` over N individuals in scope. */
export function zeroFlipsFit(r: RelabelResult, approx: boolean, budget: number, N: number): boolean {
  if (!approx || r.status.code !== 0 || r.bound !== 0 || !r.unitDelta) return false;
  let used = 0;
  for (const v of r.unitDelta) used += Math.abs(v);
  // as the solver checks a warm start: caps, units and the rate window hold whatever the budget
  return used <= flipBudget(budget, N) * (1 + 1e-12);
}

/** `r` (zeroFlipsFit at `budget`) as the answer of `budget`: its C, its window of newP (N in scope, P positive). */
export function sameFlipsAt(
  r: RelabelResult,
  settings: { budget: number; prTol: number },
  N: number,
  P: number,
): RelabelResult {
  const C = flipBudget(settings.budget, N), [lo, hi] = rateWindow(P, N, settings.prTol);
  return {
    ...r,
    status: solverStatus(0, WARM_FIT),
    flipBudget: C,
    newPositivesWindow: [P + Math.max(lo - P, -C), P + Math.min(hi - P, C)],
    seconds: { solve: 0, total: 0 },
  };
}
