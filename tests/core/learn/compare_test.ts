/**
 * The pool runs a comparison's jobs in whatever order its workers free up (the tests' pool has one
 * worker, so it never reorders them): here the `run` callback itself executes the jobs reversed and
 * shuffled, and the comparison must be the one of an in-order run.
 */
import assert from "node:assert/strict";
import { compareModels, type Comparison, cvJobs, problemOf } from "../../../core/learn/compare.ts";
import { prepare } from "../../../core/learn/prepare.ts";
import { type Job, type JobResult, MODEL_NAMES, type Problem, runJob } from "../../../core/learn/models.ts";
import { frameOf } from "../../../core/stats/frame.ts";
import { tabularDemo } from "../../../core/demo/datasets.ts";
import { Rng } from "../../../core/random.ts";

const FOLDS = 4;
const SEED = 7;

/**
 * A `run` that starts job k (in submission order) after delays[k] ms, so jobs execute in the order
 * the delays give; `executed` records it.
 */
function delayed(problem: Problem, delays: number[], executed: Job[]) {
  let k = 0;
  return (job: Job): Promise<JobResult> => {
    const wait = delays[k++] ?? 0;
    return new Promise((resolve) =>
      setTimeout(() => {
        executed.push(job);
        resolve(runJob(problem, job, SEED));
      }, wait)
    );
  };
}

const timeless = (c: Comparison) => ({ ...c, jobs: c.jobs.map(({ seconds: _, ...job }) => job) });

Deno.test("compare: jobs run reversed or shuffled give the comparison of an in-order run", async () => {
  const design = prepare(frameOf([...tabularDemo(300, 4)]), {
    trainSize: 0.7,
    folds: FOLDS,
    seed: SEED,
    maxCategories: 25,
  });
  const problem = problemOf(design);
  const n = cvJobs(MODEL_NAMES, FOLDS).length;
  assert.equal(n, 4 * FOLDS);

  const inOrder: Job[] = [];
  const base = await compareModels(design.featureNames, MODEL_NAMES, FOLDS, delayed(problem, [], inOrder));

  // Reversed: job k waits (n − k) · 3 ms, so the last submitted runs first.
  const reversedOrder: Job[] = [];
  const reversed = await compareModels(
    design.featureNames,
    MODEL_NAMES,
    FOLDS,
    delayed(problem, Array.from({ length: n }, (_, k) => (n - k) * 3), reversedOrder),
  );
  // Shuffled: a seeded permutation of the delays.
  const rng = new Rng(11);
  const perm = Array.from({ length: n }, (_, k) => k);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [perm[i], perm[j]] = [perm[j], perm[i]];
  }
  const shuffledOrder: Job[] = [];
  const shuffled = await compareModels(
    design.featureNames,
    MODEL_NAMES,
    FOLDS,
    delayed(problem, perm.map((p) => p * 3), shuffledOrder),
  );

  // The orders really differ: the cross-validation jobs ran reversed and permuted.
  const cv = (order: Job[]) => order.slice(0, n);
  assert.deepEqual(cv(reversedOrder), [...cv(inOrder)].reverse());
  assert.deepEqual(cv(shuffledOrder), perm.map((_, rank) => cv(inOrder)[perm.indexOf(rank)]));
  assert.notDeepEqual(cv(shuffledOrder), cv(inOrder));

  assert.deepEqual(timeless(reversed), timeless(base));
  assert.deepEqual(timeless(shuffled), timeless(base));
  // A comparison that could have hidden an order effect: the models do not all tie.
  assert.ok(new Set(base.accuracies).size > 1, JSON.stringify(base.accuracies));
});
