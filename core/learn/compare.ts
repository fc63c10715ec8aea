/**
 * The model comparison of the reference (PyCaret's `compare_models`): every model cross-validated
 * on the training split, ranked by mean accuracy, the best one trained on the whole training split
 * and scored on the held-out rows; its importances are the answer. Jobs go through `run`, so the
 * caller decides where they execute (the worker pool in the service, inline in tests).
 */
import { binFeatures, BOOST_BINS, coarsen, treeBins } from "./binning.ts";
import type { Design } from "./prepare.ts";
import type { Alloc } from "../memory.ts";
import { type Job, type JobResult, MODEL_NAMES, type ModelName, type Problem } from "./models.ts";

export interface Comparison {
  /** Evaluated models, best first, with their mean cross-validated accuracy. */
  models: ModelName[];
  accuracies: number[];
  best: ModelName;
  holdoutAccuracy: number;
  /** Features and the best model's importances (sum 1), largest first. */
  importance: { feature: string; importance: number }[];
  /** Every job's result (cross-validation, then the hold-out), for logs and benchmarks. */
  jobs: JobResult[];
}

/** The problem every job reads, binned on the training split (the buffers from `alloc`). */
export function problemOf(design: Design, alloc?: Alloc): Problem {
  const { columns, split, classNames } = design;
  const trees = binFeatures<Uint16Array>(columns, split.train, treeBins(classNames.length), alloc);
  return {
    trees,
    boost: coarsen(trees, split.train, BOOST_BINS, alloc),
    y: design.y,
    classes: design.classNames.length,
    train: design.split.train,
    test: design.split.test,
    fold: design.fold,
  };
}

/** Cross-validation jobs, the slowest models first so the pool's last jobs are short ones. */
export function cvJobs(models: readonly ModelName[], folds: number): Job[] {
  const cost: ModelName[] = [
    "Random Forest Classifier",
    "Extra Trees Classifier",
    "Light Gradient Boosting Machine",
    "Decision Tree Classifier",
  ];
  const jobs: Job[] = [];
  for (const model of cost.filter((m) => models.includes(m))) {
    for (let fold = 0; fold < folds; fold++) jobs.push({ model, fold });
  }
  return jobs;
}

/** Runs the comparison of `models` with `folds` folds; ties in accuracy keep the catalogue order. */
export async function compareModels(
  featureNames: string[],
  models: readonly ModelName[],
  folds: number,
  run: (job: Job) => Promise<JobResult>,
): Promise<Comparison> {
  const results = await Promise.all(cvJobs(models, folds).map(run));
  const mean = new Map<ModelName, number>();
  for (const m of models) {
    const acc = results.filter((r) => r.model === m).map((r) => r.accuracy);
    mean.set(m, acc.reduce((a, b) => a + b, 0) / acc.length);
  }
  const ranked = [...models].sort((a, b) =>
    mean.get(b)! - mean.get(a)! || MODEL_NAMES.indexOf(a) - MODEL_NAMES.indexOf(b)
  );
  const best = ranked[0];
  const final = await run({ model: best, fold: -1 });
  const importance = featureNames
    .map((feature, f) => ({ feature, importance: final.importance![f] }))
    .sort((a, b) => b.importance - a.importance); // stable: ties keep the dataset order
  return {
    models: ranked,
    accuracies: ranked.map((m) => mean.get(m)!),
    best,
    holdoutAccuracy: final.accuracy,
    importance,
    jobs: [...results, final],
  };
}
