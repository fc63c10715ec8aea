/**
 * The four classifiers the comparison knows, by the display names users of PyCaret know them, and
 * one cross-validation or hold-out job of one of them.
 */
import type { Binned } from "./binning.ts";
import { argmaxRows, evaluateTrees, type Evaluation } from "./forest.ts";
import { evaluateBoosting } from "./gbm.ts";

/** The models by PyCaret's display names, in the spec's order (ties in accuracy keep it). */
export const MODEL_NAMES = [
  "Extra Trees Classifier",
  "Light Gradient Boosting Machine",
  "Random Forest Classifier",
  "Decision Tree Classifier",
] as const;
export type ModelName = typeof MODEL_NAMES[number];

/** What every job reads: binned features, classes, the hold-out split and the folds of its training rows. */
export interface Problem {
  /** Features in up to 65,535 bins (the CART trees), and in 255 made of those (boosting, big tree nodes). */
  trees: Binned<Uint16Array>;
  boost: Binned<Uint8Array>;
  y: Int32Array;
  classes: number;
  train: Uint32Array;
  test: Uint32Array;
  /** Fold of each training row, by position in `train`. */
  fold: Int32Array;
}

/** Fold `k` of the cross-validation, or the hold-out (`fold` −1: whole training split → test split). */
export interface Job {
  model: ModelName;
  fold: number;
}

export interface JobResult extends Job {
  accuracy: number;
  /** Wall time of the job where it ran. */
  seconds: number;
  /** Only the hold-out job reports importances (of the model trained on the whole training split). */
  importance?: Float64Array;
}

function evaluate(
  problem: Problem,
  model: ModelName,
  train: Uint32Array,
  rows: Uint32Array,
  seed: number,
  predictionsOnly: boolean,
): Evaluation {
  const set = { data: problem.trees, coarse: problem.boost, y: problem.y, classes: problem.classes };
  switch (model) {
    case "Decision Tree Classifier":
      return evaluateTrees(set, "decision_tree", train, rows, seed, predictionsOnly);
    case "Random Forest Classifier":
      return evaluateTrees(set, "random_forest", train, rows, seed, predictionsOnly);
    case "Extra Trees Classifier":
      return evaluateTrees(set, "extra_trees", train, rows, seed, predictionsOnly);
    case "Light Gradient Boosting Machine":
      return evaluateBoosting({ ...set, data: problem.boost }, train, rows);
  }
}

/** A job's own seed: independent of the order jobs run in, so parallel runs repeat exactly. */
export function jobSeed(seed: number, job: Job): number {
  const m = MODEL_NAMES.indexOf(job.model);
  return (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(m + 1, 0x85ebca6b) ^
    Math.imul(job.fold + 2, 0xc2b2ae35)) >>> 0;
}

/** Trains and scores one job, because jobs are what the worker pool runs in parallel. */
export function runJob(problem: Problem, job: Job, seed: number): JobResult {
  const t0 = performance.now();
  let train: Uint32Array, rows: Uint32Array;
  if (job.fold < 0) {
    train = problem.train;
    rows = problem.test;
  } else {
    const t: number[] = [], e: number[] = [];
    problem.train.forEach((r, i) => (problem.fold[i] === job.fold ? e : t).push(r));
    train = Uint32Array.from(t);
    rows = Uint32Array.from(e);
  }
  // Cross-validation needs predictions only; the hold-out job also reports importances.
  const result = evaluate(problem, job.model, train, rows, jobSeed(seed, job), job.fold >= 0);
  const predicted = argmaxRows(result.proba, problem.classes);
  let hits = 0;
  for (let i = 0; i < rows.length; i++) if (predicted[i] === problem.y[rows[i]]) hits++;
  const out: JobResult = {
    ...job,
    accuracy: rows.length ? hits / rows.length : 0,
    seconds: (performance.now() - t0) / 1000,
  };
  if (job.fold < 0) out.importance = result.importance;
  return out;
}
