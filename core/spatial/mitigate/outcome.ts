/**
 * What every mitigation answers (relabel.ts, threshold_mitigation.ts): the solver's status and values,
 * δ per region, the flips, and the positive rates and classification metrics before and after.
 */
import { type ClassificationMetrics, classificationMetrics } from "./metrics.ts";
import type { MitigationProblem } from "./problem.ts";
import { relativeGap, type SolverStatus, type UnitSolution } from "./status.ts";

/** A mitigation's answer in the terms of the reply; each mitigation says over whom it counts. */
export interface MitigationOutcome {
  status: SolverStatus;
  /** Predictions of every individual after the mitigation (= yPred when nothing changed). */
  mitigatedPreds: Uint8Array;
  /** Collection positions whose prediction changed, ascending. */
  flipped: Int32Array;
  nFlips: number;
  /** δ of every region as the solver found it (real for approx, integer for exact); zeros without a solution. */
  regionsDelta: Float64Array;
  /** Per region, its members flipped to 1 and to 0 (relabel: in scope; threshold: of the test part). */
  regionFlips: RegionFlips;
  /** The solved model's objective (approx: Σ w_i|ρin_i - ρout_i|; exact: Σ_i (l1_i - l0)); null without one. */
  objective: number | null;
  /** A proven lower bound of the optimum (approx: a dual bound; exact: the search's); null without one. */
  bound: number | null;
  /** (objective − bound) / max(1, |objective|): how far from optimal the answer can be; null without both. */
  gap: number | null;
  /** Positive rate in scope (TPR under equal opportunity) before and after. */
  positiveRateBefore: number;
  positiveRateAfter: number;
  /** C, and the integer window of newP, of the problem solved. */
  flipBudget: number;
  newPositivesWindow: [number, number];
  /** Predictions against y_true; null without y_true. */
  metricsBefore: ClassificationMetrics | null;
  metricsAfter: ClassificationMetrics | null;
  seconds: { solve: number; total: number };
}

/** Flips per region (index: region position): to 1 and to 0. */
export interface RegionFlips {
  toPositive: Int32Array;
  toNegative: Int32Array;
}

/** The predictions before and after a mitigation, and what it measured of them. */
export interface MitigatedPredictions {
  yPred: Uint8Array;
  yTrue: Uint8Array | null;
  mitigatedPreds: Uint8Array;
  flipped: Int32Array;
  regionsDelta: Float64Array;
  regionFlips: RegionFlips;
  positiveRateBefore: number;
  positiveRateAfter: number;
  /** The positions the metrics count (default: every individual). */
  metricsOver?: Int32Array;
}

/**
 * The outcome of a solved problem, from its solution and the predictions it led to; `startMs` is when
 * the mitigation began (performance.now()), for the total time.
 */
export function mitigationOutcome(
  pr: MitigationProblem,
  sol: UnitSolution,
  preds: MitigatedPredictions,
  startMs: number,
): MitigationOutcome {
  const { yPred, yTrue, mitigatedPreds, flipped, metricsOver } = preds;
  return {
    status: sol.status,
    mitigatedPreds,
    flipped,
    nFlips: flipped.length,
    regionsDelta: preds.regionsDelta,
    regionFlips: preds.regionFlips,
    objective: sol.objective,
    bound: sol.bound,
    gap: sol.objective !== null && sol.bound !== null ? relativeGap(sol.objective, sol.bound) : null,
    positiveRateBefore: preds.positiveRateBefore,
    positiveRateAfter: preds.positiveRateAfter,
    flipBudget: pr.C,
    newPositivesWindow: [pr.P + pr.dMin, pr.P + pr.dMax],
    metricsBefore: yTrue ? classificationMetrics(yPred, yTrue, metricsOver) : null,
    metricsAfter: yTrue ? classificationMetrics(mitigatedPreds, yTrue, metricsOver) : null,
    seconds: { solve: sol.seconds, total: (performance.now() - startMs) / 1000 },
  };
}
