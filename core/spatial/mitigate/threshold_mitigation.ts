/**
 * Threshold mitigation (docs/spatial-fairness.md "Threshold mitigation"): split, solve the relabel
 * problem on the training part with continuous δ (approx: the LP's δ as is; exact, approx=false: the
 * fit uses its integer optimum δ, integers being a case of the rules), turn every region's δ into a
 * threshold and a tie probability, and predict the test part with them. The worker task "mitigate.threshold" runs it.
 *
 * Regions are over ALL individuals (members are positions 0..n-1), so every test individual, in
 * scope or not, meets its region's threshold. The optimisation sees the training part's scope (all
 * of it, or y_true = 1 under equal opportunity); a region's candidates are those of its members.
 * A vote's weight is 1/(the region's size), its training plus test members.
 */
import { ParamMismatchError } from "../../errors.ts";
import { Rng } from "../../random.ts";
import { gather, restrictRegions } from "../subset.ts";
import type { Regions } from "../types.ts";
import { regionsDelta } from "./flips.ts";
import { type MitigationOutcome, mitigationOutcome } from "./outcome.ts";
import { buildProblem, membership } from "./problem.ts";
import { type Signatures, signatures } from "../signatures.ts";
import { solveProblem } from "./relabel.ts";
import type { SearchElsewhere } from "./exact_start.ts";
import { type TrainTest, trainTestSplit } from "./train_test_split.ts";
import { hasSolution, type OnProgress } from "./status.ts";
import { predictWithThresholds, type RegionThreshold, regionThreshold } from "./region_thresholds.ts";

/** What `thresholdMitigation` needs (request names in the comments). */
export interface ThresholdInput {
  /** y_pred, y_true (or null) and y_pred_prob of every individual. */
  yPred: Uint8Array;
  yTrue: Uint8Array | null;
  prob: Float64Array;
  /** Regions over every individual (members: positions 0..n-1). */
  regions: Regions;
  /** equal_opp: optimise over the training individuals with y_true = 1 only. */
  equalOpp: boolean;
  approx: boolean;
  budget: number;
  prTol: number;
  workLimitSeconds: number;
  /** frozen_regions, as positions into `regions`: their thresholds stay at t0. */
  frozen?: ArrayLike<number>;
  /** max_flips_per_region of the training part's problem (read as budget_constr is), or null. */
  maxFlips?: number | null;
  /** default_boundary t0. */
  defaultBoundary: number;
  trainRatio: number;
  stratified: boolean;
  randomState: number;
  /** The parts `thresholdSplit` makes of these settings, when the caller made them already. */
  split?: TrainTest;
  /** What `thresholdFit` makes of that split, when the caller made (or kept) it already. */
  fit?: ThresholdFit;
}

/**
 * What the fit reads of the training part: its individuals in scope (ascending positions), the regions
 * seen through them, and their membership signatures (the problem's units). It depends on the regions,
 * the split and the scope only, so a service keeps it for the next request of the same split.
 */
export interface ThresholdFit {
  trainScope: Int32Array;
  trainRegions: Regions;
  signatures: Signatures;
}

/** The positions of `part` in scope: under equal opportunity those with y_true = 1 (an InvalidParamError without y_true). */
function inScope(input: Pick<ThresholdInput, "yTrue" | "equalOpp">, part: Int32Array): Int32Array {
  if (!input.equalOpp) return part;
  const yTrue = input.yTrue;
  if (!yTrue) {
    throw new ParamMismatchError("equal_opp needs y_true for every individual", ["equal_opp"]);
  }
  return part.filter((i) => yTrue[i] === 1);
}

/** The training part of `train` (a split's positions) as the fit reads it; an InvalidParamError for an empty scope. */
export function thresholdFit(
  input: Pick<ThresholdInput, "yTrue" | "regions" | "equalOpp">,
  train: Int32Array,
  n: number,
): ThresholdFit {
  const trainScope = inScope(input, train);
  if (trainScope.length === 0) {
    throw new ParamMismatchError("no individuals in scope in the training part", ["train_ratio"]);
  }
  const trainRegions = restrictRegions(input.regions, trainScope, n);
  return { trainScope, trainRegions, signatures: signatures(trainScope.length, trainRegions.members) };
}

/** The train/test split of a threshold mitigation: by y_true (else y_pred) when stratified. */
export function thresholdSplit(
  input: Pick<ThresholdInput, "yPred" | "yTrue" | "trainRatio" | "stratified" | "randomState">,
): TrainTest {
  const strata = input.stratified ? input.yTrue ?? input.yPred : null;
  return trainTestSplit(input.yPred.length, input.trainRatio, strata, input.randomState);
}

/**
 * The fitted thresholds and the test part's predictions: y_pred with the test part's replaced (the
 * training part unchanged), so flips are test positions; positive rates of the test part's scope; C and
 * the window of newP of the fit (the training part); metrics over the test part.
 */
export interface ThresholdResult extends MitigationOutcome {
  /** Positions of the two parts, ascending. */
  train: Int32Array;
  test: Int32Array;
  /** One per region (t0 and -1 without a solution). */
  newThresholds: RegionThreshold[];
}

/**
 * Refuses a probability column with gaps or values outside [0, 1] (data the reviewer must fix); a
 * boundary outside [0, 1] is a caller's bug (the request's was validated at the edge).
 */
function checkProbabilities(prob: Float64Array, n: number, t0: number): void {
  if (!(t0 >= 0 && t0 <= 1)) throw new RangeError(`default_boundary t0 = ${t0} must lie in [0, 1]`);
  if (prob.length !== n) {
    throw new ParamMismatchError("y_pred_prob is required", ["mapping", "y_pred_prob"]);
  }
  for (let i = 0; i < n; i++) {
    if (!(prob[i] >= 0 && prob[i] <= 1)) {
      throw new ParamMismatchError(
        `y_pred_prob must be a number in [0, 1] for every individual; position ${i} has ${prob[i]}`,
        ["mapping", "y_pred_prob"],
      );
    }
  }
}

/** prob of the individuals `scope[m[j]]`, in a loop (Float64Array.from with a function is ~10× slower). */
function probsAt(prob: Float64Array, scope: Int32Array, m: Int32Array): Float64Array {
  const out = new Float64Array(m.length);
  for (let j = 0; j < m.length; j++) out[j] = prob[scope[m[j]]];
  return out;
}

const NO_PROBS = new Float64Array(0);

function rate(y: Uint8Array, positions: Int32Array): number {
  let s = 0;
  for (const i of positions) s += y[i];
  return positions.length ? s / positions.length : 0;
}

/** The threshold mitigation of one request. */
export async function thresholdMitigation(
  input: ThresholdInput,
  onProgress?: OnProgress,
  elsewhere?: SearchElsewhere,
): Promise<ThresholdResult> {
  const t0ms = performance.now();
  const { yPred, yTrue, prob, regions, defaultBoundary: t0 } = input, n = yPred.length;
  checkProbabilities(prob, n, t0);
  const { train, test } = input.split ?? thresholdSplit(input);
  const { trainScope, trainRegions, signatures } = input.fit ?? thresholdFit(input, train, n);
  const testScope = inScope(input, test);
  const pr = buildProblem(gather(yPred, trainScope)!, trainRegions, input, signatures);
  const sol = await solveProblem(pr, input.approx, input.workLimitSeconds, onProgress, null, elsewhere);
  const R = regions.members.length;
  const solved = sol.unitDelta !== null && hasSolution(sol.status);
  const delta = solved ? regionsDelta(pr, sol.unitDelta!) : new Float64Array(R);
  // a region with δ = 0 keeps t0 without reading its members' probabilities (gathering them for every
  // region is most of the fit's time at LAR scale)
  const newThresholds = trainRegions.members.map((m, r) =>
    regionThreshold(delta[r], delta[r] === 0 ? NO_PROBS : probsAt(prob, trainScope, m), t0, r, regions.ids[r])
  );
  const mitigatedPreds = yPred.slice();
  // every individual's regions: for the test part's votes and the flips per region (none unsolved)
  const regionsOf = solved
    ? membership(n, regions.members)
    : { start: new Int32Array(n + 1), regs: new Int32Array(0) };
  if (solved) {
    const weight = Float64Array.from(regions.members, (m) => (m.length ? 1 / m.length : 0));
    const rng = new Rng((input.randomState ^ 0x5bd1e995) >>> 0);
    const preds = predictWithThresholds(
      prob,
      test,
      regionsOf,
      newThresholds,
      weight,
      t0,
      rng,
    );
    test.forEach((i, k) => (mitigatedPreds[i] = preds[k]));
  }
  const flipped = test.filter((i) => mitigatedPreds[i] !== yPred[i]);
  // flips per region: every region an individual belongs to counts its flip
  const regionFlips = { toPositive: new Int32Array(R), toNegative: new Int32Array(R) };
  for (const i of flipped) {
    const into = mitigatedPreds[i] ? regionFlips.toPositive : regionFlips.toNegative;
    for (let t = regionsOf.start[i]; t < regionsOf.start[i + 1]; t++) into[regionsOf.regs[t]]++;
  }
  return {
    ...mitigationOutcome(pr, sol, {
      yPred,
      yTrue,
      mitigatedPreds,
      flipped,
      regionsDelta: delta,
      regionFlips,
      positiveRateBefore: rate(yPred, testScope),
      positiveRateAfter: rate(mitigatedPreds, testScope),
      metricsOver: test,
    }, t0ms),
    train,
    test,
    newThresholds,
  };
}
