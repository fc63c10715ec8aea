/**
 * Preparation on small tables whose answers do not depend on which rows the seeded split draws: every
 * feature is constant within a class (or the class is all gaps), so only how many rows of each class
 * the stratified split trains on matters, and that is round(n · train_size) per class:
 * n = 1 → 1, n = 2 → 1 (1.4), n = 4 → 3 (2.8) at train_size 0.7. Each table runs under several seeds.
 */
import assert from "node:assert/strict";
import { type Design, prepare, type PrepareOptions } from "../../../core/learn/prepare.ts";
import { frameOf } from "../../../core/stats/frame.ts";

const SEEDS = [0, 1, 2, 3, 42];

function prepared(docs: Record<string, unknown>[], opts: Partial<PrepareOptions>, seed: number): Design {
  return prepare(frameOf(docs), { trainSize: 0.7, folds: 1, seed, maxCategories: 25, ...opts });
}

/** The feature column `name` as plain numbers, in the order of the kept rows. */
function column(d: Design, name: string): number[] {
  const f = d.featureNames.indexOf(name);
  assert.ok(f >= 0, `${name} not in ${d.featureNames.join(", ")}`);
  return [...d.columns[f]];
}

Deno.test("prepare: numeric gaps get the training split's mean, rows without a target are left out", () => {
  // y is the last column, so it is the target by default. Classes a (4 rows, x = 0), b (2, x = 8),
  // c (2, x missing); two rows have no target and an x that would move any mean they entered.
  const docs = [
    { x: 0, y: "a" },
    { x: 8, y: "b" },
    { y: "c" },
    { x: 0, y: "a" },
    { x: 1000, y: null },
    { x: 0, y: "a" },
    { x: 8, y: "b" },
    { x: null, y: "c" },
    { x: 0, y: "a" },
    { x: -1000 },
  ];
  for (const seed of SEEDS) {
    const d = prepared(docs, {}, seed);
    // The training split holds 3 a's (x = 0), 1 b (x = 8) and 1 c (no x): mean 8 / 4 = 2. The whole
    // column's mean over the rows with a target would be 16 / 6, with the untargeted rows 16 / 8.
    assert.deepEqual(d.featureNames, ["x"]);
    assert.deepEqual(column(d, "x"), [0, 8, 2, 0, 0, 8, 2, 0]);
    assert.deepEqual(d.classNames, ["a", "b", "c"]);
    assert.deepEqual([...d.y], [0, 1, 2, 0, 0, 1, 2, 0]);
    assert.equal(d.split.train.length + d.split.test.length, 8);
    assert.equal(d.split.train.length, 5);
    assert.deepEqual(d.dropped, []);
  }
});

Deno.test("prepare: text gaps get the training split's mode, one-hot columns `<column>_<value>` of 0/1", () => {
  // Classes a, b (2 rows each, t = "p"), c, d, e (1 row each, t = "q"), f (2 rows, t missing).
  // Over all rows p leads 4 to 3; in the training split (1 + 1 rows of p, 1 + 1 + 1 of q) q leads 3 to 2,
  // so the gaps are q. Columns come most frequent (in training) first.
  const docs = [
    { t: "p", label: "a" },
    { t: "p", label: "a" },
    { t: "p", label: "b" },
    { t: "p", label: "b" },
    { t: "q", label: "c" },
    { t: "q", label: "d" },
    { t: "q", label: "e" },
    { label: "f" },
    { t: null, label: "f" },
  ];
  for (const seed of SEEDS) {
    const d = prepared(docs, { target: "label" }, seed);
    assert.deepEqual(d.featureNames, ["t_q", "t_p"]);
    assert.deepEqual(column(d, "t_q"), [0, 0, 0, 0, 1, 1, 1, 1, 1]);
    assert.deepEqual(column(d, "t_p"), [1, 1, 1, 1, 0, 0, 0, 0, 0]);
    assert.equal(d.split.train.length, 6); // one row of each class (a class of one always trains)
  }
});

Deno.test("prepare: identifier-like text is dropped and reported; past max_categories the rest is `_other`", () => {
  // Classes a (4 rows, k = "x"), b (2, k = "y"), c (2, k = "z"), d (2, k = "w"): in training x has 3
  // rows and y, z, w one each, so with max_categories 2 the kept level is x and the rest is k_other,
  // although y is seen first. `id` has 10 distinct values in 10 rows; `half` 5 in 10 (not more than
  // half of them: kept, one level and `half_other`); `many` 6 in 10 (more than half: dropped).
  const cls = ["b", "a", "c", "a", "d", "b", "a", "c", "d", "a"];
  const level: Record<string, string> = { a: "x", b: "y", c: "z", d: "w" };
  const docs = cls.map((c, i) => ({
    id: `cust-${i}`,
    k: level[c],
    half: `h${i % 5}`,
    many: `m${Math.min(i, 5)}`,
    nested: [i],
    y: c,
  }));
  for (const seed of SEEDS) {
    const d = prepared(docs, { maxCategories: 2 }, seed);
    assert.deepEqual(d.dropped, [
      { column: "id", reason: "identifier-like text: 10 distinct values in 10 rows" },
      { column: "many", reason: "identifier-like text: 6 distinct values in 10 rows" },
      { column: "nested", reason: "no usable values (arrays, objects or only nulls)" },
    ]);
    assert.deepEqual(d.featureNames.slice(0, 2), ["k_x", "k_other"]);
    assert.deepEqual(column(d, "k_x"), cls.map((c) => (c === "a" ? 1 : 0)));
    assert.deepEqual(column(d, "k_other"), cls.map((c) => (c === "a" ? 0 : 1)));
    // Which h level leads in training depends on the draw; that there are two columns does not.
    assert.equal(d.featureNames.length, 4);
    assert.match(d.featureNames[2], /^half_h[0-4]$/);
    assert.equal(d.featureNames[3], "half_other");
    // Every row is in exactly one of a text column's one-hot columns.
    const sum = column(d, d.featureNames[2]).map((v, i) => v + column(d, "half_other")[i]);
    assert.deepEqual(sum, Array(10).fill(1));
  }
  // Up to max_categories levels no `_other` column: k has 4 levels.
  const d = prepared(docs, { maxCategories: 4 }, 0);
  assert.deepEqual(d.featureNames.filter((f) => f.startsWith("k_")).sort(), ["k_w", "k_x", "k_y", "k_z"]);
});

Deno.test("prepare: booleans are 0/1, as features and as the target (classes false, true)", () => {
  // The last column `churned` is the target: false ×4 (3 train), true ×2 (1 train). `flag` is true
  // where churned is false and false where it is true, with a gap on a churned row: the training
  // mean is 3 / 4 when the other churned row trains, 3 / 3 = 1 when the gap row does; `vip` is a
  // boolean feature without gaps.
  const docs = [
    { flag: true, vip: false, churned: false },
    { flag: false, vip: true, churned: true },
    { flag: true, vip: false, churned: false },
    { flag: true, vip: true, churned: false },
    { vip: true, churned: true },
    { flag: true, vip: false, churned: false },
  ];
  for (const seed of SEEDS) {
    const d = prepared(docs, {}, seed);
    assert.deepEqual(d.featureNames, ["flag", "vip"]);
    assert.deepEqual(d.classNames, ["false", "true"]);
    assert.deepEqual([...d.y], [0, 1, 0, 0, 1, 0]);
    assert.deepEqual(column(d, "vip"), [0, 1, 0, 1, 1, 0]);
    const gapTrains = d.split.train.includes(4);
    assert.deepEqual(column(d, "flag"), [1, 0, 1, 1, gapTrains ? 1 : 0.75, 1]);
  }
});

Deno.test("prepare: the target defaults to the last column; a numeric target's classes sort as numbers", () => {
  const docs = [
    { grade: 10, score: 1 },
    { grade: 9, score: 2 },
    { grade: 10, score: 1 },
    { grade: 2, score: 3 },
    { grade: 9, score: 2 },
    { grade: 2, score: 3 },
  ];
  const byDefault = prepared(docs, {}, 0);
  assert.deepEqual(byDefault.featureNames, ["grade"]); // score (last) is the target
  assert.deepEqual(byDefault.classNames, ["1", "2", "3"]);
  const named = prepared(docs, { target: "grade" }, 0);
  assert.deepEqual(named.featureNames, ["score"]);
  assert.deepEqual(named.classNames, ["2", "9", "10"]);
  assert.deepEqual([...named.y], [2, 1, 2, 0, 1, 0]);
});
