/**
 * `ml-random-forest` (npm) against Tessera's random forest, on the feature-importance benchmark's
 * first fold (the 100,000-row table: ~63,000 training rows × 20 features), a few trees each:
 *
 *   deno run -A bench/random_forest_compare.ts [trees]
 *
 * ml-random-forest grows ml-cart trees: features drawn per tree (maxFeatures 0.2 = 4 of 20), bootstrap
 * rows, exact splits by sorting plain arrays. Tessera's: 4 features drawn per split (scikit-learn's
 * sqrt), bootstrap, splits on binned features. Prints ms per tree and fold accuracy of each.
 */
import { RandomForestClassifier } from "ml-random-forest";
import { benchDesign } from "./valuation_design.ts";
import { problemOf } from "../core/learn/compare.ts";
import { growTree, TreeScratch } from "../core/learn/tree.ts";
import { argmaxRows } from "../core/learn/forest.ts";
import { Rng } from "../core/random.ts";

const trees = Number(Deno.args[0] ?? 5);
const design = benchDesign();
const problem = problemOf(design);
const train = problem.train.filter((_, i) => problem.fold[i] !== 0);
const evalRows = problem.train.filter((_, i) => problem.fold[i] === 0);
const accuracy = (pred: ArrayLike<number>) => {
  let hits = 0;
  for (let i = 0; i < evalRows.length; i++) if (pred[i] === design.y[evalRows[i]]) hits++;
  return (hits / evalRows.length).toFixed(4);
};

// Tessera: the same growth evaluateTrees runs, `trees` trees.
{
  const set = { data: problem.trees, coarse: problem.boost, y: problem.y, classes: 2 };
  const scratch = new TreeScratch(set, train, evalRows);
  const rng = new Rng(1);
  const proba = new Float64Array(evalRows.length * 2);
  const counts = new Uint16Array(train.length);
  const t0 = performance.now();
  for (let t = 0; t < trees; t++) {
    counts.fill(0);
    for (let k = 0; k < train.length; k++) counts[rng.int(train.length)]++;
    const idx = Uint32Array.from(counts.keys()).filter((k) => counts[k] > 0); // positions in train
    growTree(
      set,
      { idx, w: Float64Array.from(idx, (k) => counts[k]), weighted: true },
      proba,
      new Float64Array(20),
      {
        maxFeatures: 4,
        randomThresholds: false,
      },
      rng,
      scratch,
    );
  }
  const ms = (performance.now() - t0) / trees;
  console.log(
    `Tessera random forest: ${ms.toFixed(0)} ms per tree, ${trees} trees, accuracy ${
      accuracy(argmaxRows(proba, 2))
    }`,
  );
}

// ml-random-forest on the same rows (plain arrays, as it takes them).
{
  const X = (rows: Uint32Array) => Array.from(rows, (r) => design.columns.map((c) => c[r]));
  const trainX = X(train), evalX = X(evalRows);
  const trainY = Array.from(train, (r) => design.y[r]);
  const rf = new RandomForestClassifier({
    nEstimators: trees,
    maxFeatures: 0.2,
    replacement: true,
    useSampleBagging: true,
    seed: 1,
    noOOB: true,
  });
  const t0 = performance.now();
  rf.train(trainX, trainY);
  const ms = (performance.now() - t0) / trees;
  console.log(
    `ml-random-forest 2.1.0: ${ms.toFixed(0)} ms per tree, ${trees} trees, accuracy ${
      accuracy(rf.predict(evalX))
    }`,
  );
}
