import assert from "node:assert/strict";
import { binFeatures, BOOST_BINS, coarsen, treeBins } from "../../../core/learn/binning.ts";
import { evaluateTrees } from "../../../core/learn/forest.ts";
import { type BoostSet, evaluateBoosting, GBM_DEFAULTS } from "../../../core/learn/gbm.ts";
import type { TrainSet } from "../../../core/learn/tree.ts";

const all = (n: number) => Uint32Array.from({ length: n }, (_, i) => i);

function setOf(columns: number[][], y: number[], classes = 2): TrainSet {
  const cols = columns.map((c) => Float64Array.from(c));
  const data = binFeatures<Uint16Array>(cols, all(y.length), treeBins(classes));
  return { data, coarse: coarsen(data, all(y.length), BOOST_BINS), y: Int32Array.from(y), classes };
}

function boostSetOf(columns: number[][], y: number[], classes = 2): BoostSet {
  const cols = columns.map((c) => Float64Array.from(c));
  return { data: binFeatures<Uint8Array>(cols, all(y.length), BOOST_BINS), y: Int32Array.from(y), classes };
}

Deno.test("decision tree by hand: y = x AND z needs both splits; gini decreases 0.5 and 1 → importances 1/3, 2/3", () => {
  // Root [3 no, 1 yes]: Σc²/n = 10/4. Either first split (x or z, a tie) leaves [2,0] and [1,1]:
  // 4/2 + 2/2 = 3, a decrease of 0.5; the [1,1] node then splits pure: 1 + 1 − 2/2 = 1.
  const set = setOf([[0, 0, 1, 1], [0, 1, 0, 1]], [0, 0, 0, 1]);
  const r = evaluateTrees(set, "decision_tree", all(4), all(4), 1);
  assert.deepEqual([...r.importance].sort((a, b) => a - b), [1 / 3, 2 / 3]);
  assert.deepEqual([...r.proba], [1, 0, 1, 0, 1, 0, 0, 1]);
});

Deno.test("forests: class shares are averaged over 100 trees; a pure feature takes all importance", () => {
  const set = setOf([[0, 1, 2, 3, 4, 5], [7, 7, 7, 7, 7, 7]], [0, 0, 0, 1, 1, 1]);
  for (const kind of ["random_forest", "extra_trees"] as const) {
    const r = evaluateTrees(set, kind, all(6), Uint32Array.from([0, 5]), 3);
    assert.deepEqual([...r.importance], [1, 0], kind);
    assert.ok(r.proba[0] > 0.5 && r.proba[3] > 0.5, kind);
    assert.ok(Math.abs(r.proba[0] + r.proba[1] - 1) < 1e-12, kind);
  }
});

Deno.test("extra trees over 30 features, 29 constant: five drawn per node (four, then one), constants skipped", () => {
  // max_features = ⌊√30⌋ = 5, gathered four at a time and then one; a node keeps drawing past the five
  // while they are constant, so every split is on feature 17, the only one that varies: it takes all
  // the importance, and grown until pure, every training row is predicted with certainty.
  const n = 40;
  const x = Array.from({ length: n }, (_, i) => (i * 7) % n);
  const columns = Array.from({ length: 30 }, (_, f) => (f === 17 ? x : Array(n).fill(3)));
  const set = setOf(columns, x.map((v) => (v % 3 === 0 ? 1 : 0)));
  const evalRows = Uint32Array.from([0, 1, 2, 3, 9]);
  const r = evaluateTrees(set, "extra_trees", all(n), evalRows, 5);
  assert.deepEqual([...r.importance], Array.from({ length: 30 }, (_, f) => (f === 17 ? 1 : 0)));
  const expected = [...evalRows].flatMap((row) => (x[row] % 3 === 0 ? [0, 1] : [1, 0]));
  assert.deepEqual([...r.proba], expected);
});

const tiny = { ...GBM_DEFAULTS, minDataInLeaf: 1 };

Deno.test("boosting by hand: starts from the log-odds of the training rows", () => {
  // 3 of 4 positive: log(3/1); no round, so every row is scored sigmoid(log 3) = 0.75.
  const set = boostSetOf([[0, 1, 2, 3]], [0, 1, 1, 1]);
  const r = evaluateBoosting(set, all(4), all(1), { ...tiny, rounds: 0 });
  assert.ok(Math.abs(r.proba[1] - 0.75) < 1e-15);
});

Deno.test("boosting by hand: one round, two leaves, leaf value −G/H × learning rate", () => {
  // Start 0 (2 of 4 positive): p = 0.5, g = p − y = ±0.5, h = 0.25. Split x ≤ 1: G = ±1, H = 0.5,
  // gain 1/0.5 + 1/0.5 − 0 = 4; leaves −(1/0.5)·0.1 = −0.2 and +0.2.
  const set = boostSetOf([[0, 1, 2, 3]], [0, 0, 1, 1]);
  const r = evaluateBoosting(set, all(4), Uint32Array.from([0, 3]), { ...tiny, rounds: 1, numLeaves: 2 });
  assert.ok(Math.abs(r.proba[1] - 1 / (1 + Math.exp(0.2))) < 1e-15);
  assert.ok(Math.abs(r.proba[3] - 1 / (1 + Math.exp(-0.2))) < 1e-15);
  assert.deepEqual([...r.importance], [1]);
});

Deno.test("boosting by hand: three classes, one tree per class from the same start, softmax", () => {
  // Start 0: p = 1/3, h = (3/2)(1/3)(2/3) = 1/3. Class 0: g = −2/3 (rows 0,1), 1/3 else; best x ≤ 1 (gain 4),
  // leaves −(−4/3)/(2/3)·0.1 = 0.2 and −(4/3)/(4/3)·0.1 = −0.1. Class 2 mirrors it at x ≤ 3: −0.1, 0.2.
  // Class 1: x ≤ 1 and x ≤ 3 tie at gain 1; the first wins: −(2/3)/(2/3)·0.1 = −0.1 and (2/3)/(4/3)·0.1 = 0.05.
  const set = boostSetOf([[0, 1, 2, 3, 4, 5]], [0, 0, 1, 1, 2, 2], 3);
  const r = evaluateBoosting(set, all(6), Uint32Array.from([0, 5]), { ...tiny, rounds: 1, numLeaves: 2 });
  const softmax = (s: number[]) => s.map((v) => Math.exp(v) / s.reduce((a, b) => a + Math.exp(b), 0));
  const expect = [...softmax([0.2, -0.1, -0.1]), ...softmax([-0.1, 0.05, 0.2])];
  expect.forEach((p, i) => assert.ok(Math.abs(r.proba[i] - p) < 1e-15, `${i}: ${r.proba[i]} vs ${p}`));
});

Deno.test("trees: growing only what predictions need gives the same predictions as the whole tree", () => {
  // 300 noisy rows: fully grown trees are deep, and most of their small subtrees hold no evaluated row.
  const n = 300;
  const x = Array.from(
    { length: 5 },
    (_, j) => Array.from({ length: n }, (_, i) => Math.sin(i * (j + 1.3)) * 10),
  );
  const y = Array.from({ length: n }, (_, i) => (x[0][i] + x[1][i] + Math.sin(i * 7.7) * 8 > 0 ? 1 : 0));
  const set = setOf(x, y);
  const train = Uint32Array.from({ length: 250 }, (_, i) => i),
    rows = Uint32Array.from({ length: 50 }, (_, i) => 250 + i);
  for (const kind of ["decision_tree", "random_forest", "extra_trees"] as const) {
    const whole = evaluateTrees(set, kind, train, rows, 5);
    const lean = evaluateTrees(set, kind, train, rows, 5, true);
    assert.deepEqual(lean.proba, whole.proba, kind);
  }
});
