import assert from "node:assert/strict";
import { checkFoldable, stratifiedFolds, stratifiedSplit } from "../../../core/learn/folds.ts";
import { InvalidParamError } from "../../../core/errors.ts";
import { Rng } from "../../../core/random.ts";

// 70 rows of class 0 and 30 of class 1.
const y = Int32Array.from({ length: 100 }, (_, i) => (i % 10 < 3 ? 1 : 0));

Deno.test("split: each class in proportion, disjoint, ascending, seeded", () => {
  const s = stratifiedSplit(y, 2, 0.7, new Rng(1));
  assert.equal(s.train.length, 70); // 49 + 21
  assert.equal([...s.train].filter((r) => y[r] === 1).length, 21);
  assert.equal(new Set([...s.train, ...s.test]).size, 100);
  assert.deepEqual([...s.train], [...s.train].sort((a, b) => a - b));
  assert.deepEqual(stratifiedSplit(y, 2, 0.7, new Rng(1)), s);
  assert.notDeepEqual(stratifiedSplit(y, 2, 0.7, new Rng(2)).train, s.train);
});

Deno.test("folds: sizes differ by at most one and every fold has its share of each class", () => {
  const s = stratifiedSplit(y, 2, 0.7, new Rng(1));
  const fold = stratifiedFolds(y, 2, s.train, 10, new Rng(1));
  for (let k = 0; k < 10; k++) {
    const members = [...s.train].filter((_, i) => fold[i] === k);
    assert.equal(members.length, 7);
    assert.ok([2, 3].includes(members.filter((r) => y[r] === 1).length));
  }
});

Deno.test("checkFoldable: a class with fewer training rows than folds names folds, saying so", () => {
  const s = stratifiedSplit(y, 2, 0.7, new Rng(1));
  checkFoldable(y, ["no", "yes"], s, 10, 0.7);
  assert.throws(() => checkFoldable(y, ["no", "yes"], s, 22, 0.7), (e: Error) => {
    assert.ok(e instanceof InvalidParamError);
    assert.deepEqual(e.param, ["folds"]);
    assert.match(e.message, /class 'yes' has 21 rows in the 70 % training split .* at least 22/);
    return true;
  });
});
