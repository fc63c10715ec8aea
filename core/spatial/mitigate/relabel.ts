/**
 * The relabel mitigation (docs/spatial-fairness.md "Relabel mitigation (PROMIS)") from typed columns
 * to flips: problem data, the solver (approx: HiGHS; exact: disjoint B&B over newP, or the overlapping
 * search), δ → flips (flips.ts: the plain half-to-even rounding when it keeps n_flips ≤ C and newP in
 * the window, else rounded under those constraints; then which members of each unit flip, by
 * flip_order), new predictions over every individual, flips per region, rates and metrics. The
 * worker task "mitigate.relabel" runs it; an infeasible or unfinished solve is a status with no
 * flips, never a throw.
 */
import { type AuditPlan, planSignatures } from "../plan.ts";
import { xlogxTable } from "../statistic.ts";
import type { Regions } from "../types.ts";
import { gather } from "../subset.ts";
import { solveApprox } from "./approx.ts";
import { solveExactDisjoint } from "./exact_disjoint.ts";
import { groupsOf } from "./exact_fixed_rate.ts";
import { solveExactOverlapping } from "./exact_overlapping.ts";
import { exactStart, type SearchElsewhere } from "./exact_start.ts";
import { chooseMembers, type FlipOrder, regionFlipCounts, regionsDelta, unitFlipCounts } from "./flips.ts";
import { type MitigationOutcome, mitigationOutcome } from "./outcome.ts";
import { buildProblem, type MitigationProblem, unitRegion } from "./problem.ts";
import {
  GAP_TOLERANCE,
  hasSolution,
  type OnProgress,
  relativeGap,
  solverStatus,
  type UnitSolution,
} from "./status.ts";

/** What `relabel` needs: the collection's columns, the audit's scope and regions, the request's knobs. */
export interface RelabelInput {
  /** y_pred of every individual of the collection (0/1). */
  yPred: Uint8Array;
  /** y_true of every individual, or null (then no metrics). */
  yTrue: Uint8Array | null;
  /** Positions (into yPred) of the individuals in scope, ascending (load.ts scopeOf). */
  scope: Int32Array;
  /** Regions over scope positions (regions.ts buildRegions). */
  regions: Regions;
  /** approx: PROMIS-Approx on HiGHS; otherwise PROMIS-Exact. */
  approx: boolean;
  /** budget_constr. */
  budget: number;
  /** pr_constr. */
  prTol: number;
  /** work_limit: seconds of solver wall-clock time (HiGHS time_limit; the exact search's deadline). */
  workLimitSeconds: number;
  /** flip_order: which members of a unit flip (default "index"); "uncertainty" needs `prob`. */
  flipOrder?: FlipOrder;
  /** y_pred_prob of every individual (as yPred), or null. */
  prob?: Float64Array | null;
  /** Seed of the "random" order and of the tie-breaks (the request's `seed`; default 0). */
  seed?: number;
  /** The plan of an audit over this scope and these regions: the problem takes its signatures. */
  plan?: AuditPlan;
  /** frozen_regions, as positions into `regions`: their members never flip. */
  frozen?: ArrayLike<number>;
  /** max_flips_per_region (≤ 1 a fraction of each region's members, > 1 a count), or null for none. */
  maxFlips?: number | null;
  /** Approx only: a neighbouring relabel's `unitDelta` (a smaller budget of a frontier) to start from. */
  warm?: Float64Array | null;
  /**
   * Exact only: false keeps the search on its own core (exact_start.ts SearchElsewhere). A frontier's points
   * run beside each other on the pool, so a second core for each would put four searches on two cores.
   */
  secondCore?: boolean;
}

/** The relabel's answer: positive rates in scope, metrics over every individual with y_true. */
export interface RelabelResult extends MitigationOutcome {
  /** The flip order applied. */
  flipOrder: FlipOrder;
  /** The solver's flips per unit (null without a solution): the warm start of a neighbouring relabel. */
  unitDelta: Float64Array | null;
}

/** Overlapping exact searches over more units than this start from the rounded approx solution. */
const SEED_UNITS = 24;

/** A search's answer with a bound proven elsewhere: the larger bound, and status 0 once the gap closes. */
function withBound(r: UnitSolution, bound: number): UnitSolution {
  if (r.objective === null || r.bound === null || r.status.code === 0) return r;
  const b = Math.max(r.bound, Math.min(bound, r.objective));
  if (relativeGap(r.objective, b) > GAP_TOLERANCE) return { ...r, bound: b };
  return { ...r, bound: b, status: solverStatus(0, "the incumbent meets the bound of the integer counts") };
}

/**
 * Runs the chosen solver on a problem (the part shared by relabel and threshold mitigation). `elsewhere`:
 * where an exact search may run on a second core (exact_start.ts).
 */
export async function solveProblem(
  pr: MitigationProblem,
  approx: boolean,
  workLimitSeconds: number,
  onProgress?: OnProgress,
  warm: Float64Array | null = null,
  elsewhere?: SearchElsewhere,
): Promise<UnitSolution> {
  if (!(Number.isFinite(workLimitSeconds) && workLimitSeconds > 0)) {
    throw new RangeError(`the work limit must be a positive number of seconds, not ${workLimitSeconds}`);
  }
  const t0 = performance.now();
  try {
    if (pr.dMin > pr.dMax) {
      const detail = `no newP in [${pr.P + pr.dMin}, ${pr.P + pr.dMax}] within the budget of ${pr.C} flips`;
      return { status: solverStatus(3, detail), unitDelta: null, objective: null, bound: null, seconds: 0 };
    }
    if (approx) {
      const r = await solveApprox(pr, workLimitSeconds, onProgress, warm);
      return {
        status: r.status,
        unitDelta: r.unitDelta,
        objective: r.objective,
        bound: r.bound,
        seconds: r.seconds,
      };
    }
    if (pr.overlapping) {
      if (pr.unitSign.length <= SEED_UNITS) {
        return solveExactOverlapping(pr, workLimitSeconds, null, 0, Infinity, onProgress);
      }
      // beyond a few units the search needs a good incumbent to prune and a bound that counts integers:
      // exact_start.ts finds both in part of the work limit (its misses only leave the search unseeded)
      const t = xlogxTable(pr.N), seed = await exactStart(pr, t, workLimitSeconds, onProgress, elsewhere);
      if (seed.bound === Infinity) {
        const detail = "no integer flips reach a positive count in the rate window";
        return {
          status: solverStatus(3, detail),
          unitDelta: null,
          objective: null,
          bound: null,
          seconds: seed.seconds,
        };
      }
      // the search's own bound is its root's; the caller sees the better of the two
      const floor = (b: number | null) => (b === null ? seed.bound : Math.max(b, seed.bound));
      const progress: OnProgress | undefined = onProgress &&
        ((p) => onProgress({ ...p, bound: floor(p.bound) }));
      const r = solveExactOverlapping(pr, workLimitSeconds, seed.start, seed.seconds, Infinity, progress);
      return { ...withBound(r, seed.bound), seconds: r.seconds + seed.seconds };
    }
    const G = groupsOf(pr, xlogxTable(pr.N));
    const r = solveExactDisjoint(G, pr.dMin, pr.dMax, workLimitSeconds);
    if (!r.best || !hasSolution(r.status)) {
      return { status: r.status, unitDelta: null, objective: null, bound: r.bound, seconds: r.seconds };
    }
    // group g's change x_g - p_g goes to its up unit (> 0) or its down unit (< 0)
    const unitDelta = new Float64Array(pr.unitSign.length);
    for (let u = 0; u < unitDelta.length; u++) {
      const g = unitRegion(pr, u);
      const d = r.best.x[g] - G.p[g];
      if (d * pr.unitSign[u] > 0) unitDelta[u] = d;
    }
    return { status: r.status, unitDelta, objective: r.best.value, bound: r.bound, seconds: r.seconds };
  } catch (e) {
    // a solver that throws (a stack overflow, an allocation failure) still answers: a status, no flips
    const detail = `the solver failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
    const seconds = (performance.now() - t0) / 1000;
    return { status: solverStatus(4, detail), unitDelta: null, objective: null, bound: null, seconds };
  }
}

/** The relabel mitigation of one request (see RelabelInput for the units of each field). */
export async function relabel(
  input: RelabelInput,
  onProgress?: OnProgress,
  elsewhere?: SearchElsewhere,
): Promise<RelabelResult> {
  const t0 = performance.now();
  const { yPred, yTrue, scope } = input;
  const flipOrder = input.flipOrder ?? "index", prob = input.prob ?? null;
  if (flipOrder === "uncertainty" && (!prob || prob.length !== yPred.length)) {
    // the service refuses it first, naming the field (services/mitigation/relabel.ts: flipOrderOf)
    throw new RangeError("flip_order 'uncertainty' needs y_pred_prob for every individual");
  }
  const labels = gather(yPred, scope)!;
  const known = input.plan?.n === scope.length ? planSignatures(input.plan, input.regions) : undefined;
  const params = { budget: input.budget, prTol: input.prTol, frozen: input.frozen, maxFlips: input.maxFlips };
  const pr = buildProblem(labels, input.regions, params, known);
  const warm = input.warm ?? null;
  const sol = await solveProblem(pr, input.approx, input.workLimitSeconds, onProgress, warm, elsewhere);
  const mitigatedPreds = yPred.slice();
  // the solution fixes how many of each unit flip (and so every region's count); flip_order whom
  let flipped = new Int32Array(0), newP = pr.P, counts: Int32Array = new Int32Array(pr.unitSign.length);
  if (sol.unitDelta && hasSolution(sol.status)) {
    counts = unitFlipCounts(pr, sol.unitDelta);
    const choice = {
      order: flipOrder,
      prob: flipOrder === "uncertainty" ? gather(prob, scope) : null,
      seed: input.seed ?? 0,
    };
    flipped = Int32Array.from(chooseMembers(pr, counts, choice), (j) => scope[j]);
    for (const i of flipped) (newP += mitigatedPreds[i] ? -1 : 1, mitigatedPreds[i] ^= 1);
  }
  const outcome = mitigationOutcome(pr, sol, {
    yPred,
    yTrue,
    mitigatedPreds,
    flipped,
    regionsDelta: sol.unitDelta ? regionsDelta(pr, sol.unitDelta) : new Float64Array(pr.n.length),
    regionFlips: regionFlipCounts(pr, counts),
    positiveRateBefore: pr.N ? pr.P / pr.N : 0,
    positiveRateAfter: pr.N ? newP / pr.N : 0,
  }, t0);
  return { ...outcome, flipOrder, unitDelta: hasSolution(sol.status) ? sol.unitDelta : null };
}
