/**
 * PROMIS-Exact over overlapping regions where the budget binds (docs/spatial-fairness.md "Where the budget
 * binds"): the separable bound B(P') lets every region reach its best count on its own, which a few
 * thousand flips cannot do at once, so it can sit orders of magnitude below the optimum. Here the
 * continuous relaxation is solved at a few D (exact_relaxation.ts); each solution's multipliers bound every
 * D of the window (exact_dual_bound.ts), the next D solved being where the bound is still lowest; the
 * relaxation with the lowest value, rounded, is the incumbent.
 */
import { dualValues } from "./exact_dual_bound.ts";
import { relaxAtD, type Relaxation } from "./exact_relaxation.ts";
import { roundHerded } from "./exact_round.ts";
import type { MitigationProblem } from "./problem.ts";

/** Steps of one relaxation: near convergence from a neighbour's point, a first estimate from none. */
const STEPS = 100;

/** Rounds in a row without a rise of the lowest bound after which the relaxations give way. */
const STALL = 2;

/** What the relaxations found: the bound over every integer solution, and a rounded incumbent. */
export interface BudgetStart {
  bound: number;
  start: Int32Array | null;
  /**
   * True when the relaxations stopped for no longer raising the lowest bound (STALL rounds, or at once when
   * the first one lifts not even its own D), not for the time.
   */
  stalled: boolean;
}

/**
 * Relaxations at D chosen as above until `deadline` (performance.now() ms; at least one). The bound per D
 * starts as B(P') (the multipliers y = 0) and only rises. `upper`: an incumbent's objective; a D whose bound
 * already reaches it cannot hold the minimum, so later multiplier sets skip it. `given`: the bound per D
 * (index D - dMin) to start from and raise in place (B(P') when absent).
 */
export function budgetStart(
  pr: MitigationProblem,
  t: Float64Array,
  deadline: number,
  upper = Infinity,
  given?: Float64Array,
): BudgetStart {
  const W = pr.dMax - pr.dMin + 1, values = new Float64Array(W), env = given ?? new Float64Array(W);
  if (!given) dualValues(pr, t, new Float64Array(pr.n.length), env, deadline); // B(P') itself
  const solved: Relaxation[] = [];
  const lowest = () => {
    let at = 0;
    for (let j = 1; j < W; j++) if (env[j] < env[at]) at = j;
    return at;
  };
  const nearest = (D: number) =>
    solved.reduce<Relaxation | null>((b, r) => (!b || Math.abs(r.D - D) < Math.abs(b.D - D) ? r : b), null);
  let best: Relaxation | null = null, stalled = false, last = -Infinity, idle = 0;
  const seeds = [0.5, 0.15, 0.85].map((f) => Math.round(pr.dMin + f * (W - 1)));
  for (let round = 0; round < 64; round++) {
    if (round >= 1 && performance.now() > deadline) break;
    const D = round < seeds.length ? seeds[round] : pr.dMin + lowest();
    const from = nearest(D);
    const r = relaxAtD(pr, D, deadline, STEPS, from?.k ?? null);
    const at = solved.findIndex((s) => s.D === D);
    at >= 0 ? (solved[at] = r) : solved.push(r);
    if (!best || r.value < best.value) best = r;
    dualValues(pr, t, r.y, values, deadline, (j) => env[j] < upper);
    // the first relaxation's multipliers do not even lift its own D: its steps are far from converged, and
    // so will the others' be (LAR-like EO 2,000: g −171 at D 0 where its value is 41.4; SP 2,000: 1,190 of
    // 2,633)
    const own = values[D - pr.dMin] <= env[D - pr.dMin];
    for (let j = 0; j < W; j++) if (values[j] > env[j]) env[j] = values[j];
    if ((stalled = round === 0 && own)) break;
    // within 0.1 % of the best relaxation's value, more relaxations add little to the bound
    if (env[lowest()] >= best.value * (1 - 1e-3)) break;
    // past the seeds, STALL rounds in a row that leave the lowest bound where it was: these multipliers
    // do not reach it (their relaxations are far from converged there)
    idle = env[lowest()] > last ? 0 : idle + 1;
    last = Math.max(last, env[lowest()]);
    if ((stalled = round >= seeds.length && idle >= STALL)) break;
  }
  const bound = Math.max(0, env[lowest()]);
  return {
    bound: Number.isFinite(bound) ? bound : 0,
    start: best ? roundHerded(pr, t, best.k, best.D) : null,
    stalled,
  };
}
