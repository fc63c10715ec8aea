import assert from "node:assert/strict";
import { InvalidParamError } from "../../../../core/errors.ts";
import { trainTestSplit } from "../../../../core/spatial/mitigate/train_test_split.ts";

Deno.test("split: reproducible for a seed, different for another, a partition of 0..n-1", () => {
  const a = trainTestSplit(1000, 0.7, null, 42), b = trainTestSplit(1000, 0.7, null, 42);
  assert.deepEqual(a, b);
  assert.notDeepEqual(trainTestSplit(1000, 0.7, null, 43).train, a.train);
  assert.equal(a.train.length, 700);
  assert.equal(a.test.length, 300);
  const all = [...a.train, ...a.test].sort((x, y) => x - y);
  assert.deepEqual(all, Array.from({ length: 1000 }, (_, i) => i));
  assert.ok(a.train.every((v, i) => i === 0 || a.train[i - 1] < v)); // ascending
});

Deno.test("split: stratified keeps each class's share (round(count·ratio) per class)", () => {
  const strata = Uint8Array.from({ length: 1001 }, (_, i) => (i % 10 < 3 ? 1 : 0)); // 301 ones, 700 zeros
  const { train, test } = trainTestSplit(1001, 0.7, strata, 7);
  const ones = (p: Int32Array) => p.reduce((s, i) => s + strata[i], 0);
  assert.equal(ones(train), Math.round(301 * 0.7)); // 211
  assert.equal(train.length - ones(train), 490);
  assert.equal(ones(test), 90);
  assert.equal(test.length - ones(test), 210);
  // unstratified on the same data drifts from the share (a check that stratification does something)
  const loose = [1, 2, 3, 4, 5].map((seed) => ones(trainTestSplit(1001, 0.7, null, seed).train));
  assert.ok(loose.some((k) => k !== 211), `${loose}`);
});

Deno.test("split: a ratio outside (0, 1) or a bad seed is a bug; an empty part names train_ratio", () => {
  for (const [n, r, s] of [[10, 0, 1], [10, 1, 1], [10, 0.5, -1], [10, 0.5, 1.5]]) {
    assert.throws(() => trainTestSplit(n, r, null, s), RangeError, `${n} ${r} ${s}`);
  }
  for (const [n, r, s] of [[1, 0.7, 1], [3, 0.01, 1]]) {
    assert.throws(
      () => trainTestSplit(n, r, null, s),
      (e: Error) => e instanceof InvalidParamError && e.param[0] === "train_ratio",
      `${n} ${r} ${s}`,
    );
  }
});
