/**
 * Feature importance (spec 2): classifiers compared by cross-validated accuracy as PyCaret's
 * `compare_models` did, the best one's importances ranked.
 */
import { locateParams } from "../../core/errors.ts";
import { MODEL_NAMES, type ModelName } from "../../core/learn/models.ts";
import { targetName } from "../../core/learn/prepare.ts";
import { featureImportanceOnPool } from "./on_pool.ts";
import { loadDatasetFrame, shapeOf, type ValuationDeps } from "./dataset_frame.ts";
import { findDataset, recordedTarget } from "../datasets/registry.ts";

/**
 * The dataset's recorded target (set at import, kept when columns are added), so that a column appended
 * later (`is_anomaly`) never becomes the default; undefined (the frame's last column) without a record.
 */
async function defaultTarget(deps: ValuationDeps, datasetId: string): Promise<string | undefined> {
  const rec = await findDataset(deps.store, deps.config.TESSERA_DB, datasetId);
  return rec ? recordedTarget(rec) : undefined;
}

export interface FeatureImportanceInput {
  datasetId: string;
  /** The models to compare; null, absent or empty: all four. */
  models?: readonly ModelName[] | null;
  /** The column to predict; absent: the dataset's recorded target (registry.ts), else its last column. */
  target?: string;
  trainSize: number;
  folds: number;
  seed: number;
  maxCategories: number;
}

export interface FeatureImportance {
  /** Features and the best model's importances (sum 1), largest first. */
  importance: { feature: string; importance: number }[];
  /** Evaluated models, best first, and their mean cross-validated accuracy. */
  models: ModelName[];
  accuracies: number[];
  best: ModelName;
  holdoutAccuracy: number;
  shape: [number, number];
  /** The column predicted: the input's, or the default one. */
  target: string;
  folds: number;
  elapsedSeconds: number;
}

/**
 * Loads the dataset, compares the models on the worker pool and ranks the best one's features. A parameter
 * the dataset cannot honour (a target that is not a column, too few rows for the folds) names its body field.
 */
export function analyzeFeatureImportance(
  deps: ValuationDeps,
  input: FeatureImportanceInput,
): Promise<FeatureImportance> {
  return locateParams((param) => ["body", ...param], () => compareOn(deps, input));
}

async function compareOn(deps: ValuationDeps, input: FeatureImportanceInput): Promise<FeatureImportance> {
  const t0 = performance.now();
  const asked = input.models;
  const models = asked?.length ? MODEL_NAMES.filter((m) => asked.includes(m)) : MODEL_NAMES;
  const { frame } = await loadDatasetFrame(deps, input.datasetId);
  const target = input.target ?? await defaultTarget(deps, input.datasetId);
  const { comparison } = await featureImportanceOnPool(deps.pool, frame, {
    target,
    trainSize: input.trainSize,
    folds: input.folds,
    seed: input.seed,
    maxCategories: input.maxCategories,
  }, models);
  return {
    importance: comparison.importance,
    models: comparison.models,
    accuracies: comparison.accuracies,
    best: comparison.best,
    holdoutAccuracy: comparison.holdoutAccuracy,
    shape: shapeOf(frame),
    target: targetName(frame, target),
    folds: input.folds,
    elapsedSeconds: Math.round(performance.now() - t0) / 1000,
  };
}
