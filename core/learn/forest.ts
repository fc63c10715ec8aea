/**
 * The three tree models with scikit-learn's defaults: a single CART tree over all features, a random
 * forest (bootstrap samples, sqrt(features) per split, class shares averaged) and extra trees (the
 * whole sample, sqrt(features), random thresholds), 100 trees each. Importances are scikit-learn's:
 * each tree's gini decreases normalised to sum 1, averaged over the trees, normalised again.
 */
import { Rng } from "../random.ts";
import { growTree, type Sample, type TrainSet, TreeScratch } from "./tree.ts";

export type TreeModelKind = "decision_tree" | "random_forest" | "extra_trees";

/** What evaluating a model gives: class shares of the evaluation rows and feature importances. */
export interface Evaluation {
  /** `proba[i * classes + c]` for evaluation row i. */
  proba: Float64Array;
  importance: Float64Array;
}

const TREES = 100;

/** Adds `v` normalised to sum 1 into `into` (nothing when all zero, as a stump adds nothing). */
function addNormalised(into: Float64Array, v: Float64Array): void {
  let s = 0;
  for (const x of v) s += x;
  if (s > 0) { for (let f = 0; f < v.length; f++) into[f] += v[f] / s; }
}

/**
 * Trains a tree model on `train` rows and scores `evalRows`, because the comparison only ever needs
 * held-out predictions and importances, never a stored model (`predictionsOnly`: importances are
 * not wanted, so subtrees no evaluation row reaches are not grown).
 */
export function evaluateTrees(
  set: TrainSet,
  kind: TreeModelKind,
  train: Uint32Array,
  evalRows: Uint32Array,
  seed: number,
  predictionsOnly = false,
): Evaluation {
  const p = set.data.features;
  const C = set.classes;
  const rng = new Rng(seed);
  const single = kind === "decision_tree";
  const trees = single ? 1 : TREES;
  const opts = {
    maxFeatures: single ? p : Math.max(1, Math.floor(Math.sqrt(p))),
    randomThresholds: kind === "extra_trees",
    predictionsOnly,
  };
  const proba = new Float64Array(evalRows.length * C);
  const importance = new Float64Array(p);
  const treeImportance = new Float64Array(p);
  const scratch = new TreeScratch(set, train, evalRows);
  const n = train.length;
  const positions = Uint32Array.from({ length: n }, (_, k) => k);
  const ones = new Float64Array(n).fill(1);
  const counts = kind === "random_forest" ? new Uint16Array(n) : null;
  for (let t = 0; t < trees; t++) {
    let sample: Sample;
    if (counts) {
      // A bootstrap as scikit-learn draws it: n rows with replacement, kept as distinct rows with counts.
      counts.fill(0);
      for (let k = 0; k < n; k++) counts[rng.int(n)]++;
      let distinct = 0;
      for (let k = 0; k < n; k++) if (counts[k] > 0) distinct++;
      sample = { idx: new Uint32Array(distinct), w: new Float64Array(distinct), weighted: true };
      for (let k = 0, i = 0; k < n; k++) {
        if (counts[k] > 0) {
          sample.idx[i] = k;
          sample.w[i++] = counts[k];
        }
      }
    } else sample = { idx: positions.slice(), w: ones, weighted: false };
    treeImportance.fill(0);
    growTree(set, sample, proba, treeImportance, opts, rng, scratch);
    addNormalised(importance, treeImportance);
  }
  for (let k = 0; k < proba.length; k++) proba[k] /= trees;
  const normalised = new Float64Array(p);
  addNormalised(normalised, importance);
  return { proba, importance: normalised };
}

/** The class with the largest share per row (the first on ties, as numpy's argmax). */
export function argmaxRows(proba: Float64Array, classes: number): Int32Array {
  const out = new Int32Array(proba.length / classes);
  for (let i = 0; i < out.length; i++) {
    let best = 0;
    for (let c = 1; c < classes; c++) if (proba[i * classes + c] > proba[i * classes + best]) best = c;
    out[i] = best;
  }
  return out;
}
