/** profile on values whose statistics are worked out by hand in the comments. */
import assert from "node:assert/strict";
import { profile, ProfileParams, quantile } from "../../../core/annotate/profile.ts";
import { toTable } from "../../../core/annotate/table.ts";

const close = (a: number | null | undefined, b: number) =>
  assert.ok(Math.abs((a ?? NaN) - b) < 1e-9, `${a} ≠ ${b}`);

Deno.test("profile: numeric summary, sample std, numpy quartiles and Tukey outliers", () => {
  const x = [5, 4, 9, 4, 100, 2, 7, 4, 5, null];
  const { rows, columns } = profile(toTable(x.map((v) => ({ x: v }))), ProfileParams.parse({}));
  const [c] = columns;
  assert.equal(rows, 10);
  assert.deepEqual([c.kind, c.count, c.missing, c.distinct], ["numeric", 10, 1, 6]);
  // sorted: 2 4 4 4 5 5 7 9 100; sum 140; sum of squares 10232
  const s = c.numeric!;
  assert.deepEqual([s.min, s.max], [2, 100]);
  close(s.mean, 140 / 9);
  close(s.std, Math.sqrt((10232 - 140 ** 2 / 9) / 8));
  // n = 9: Q1 at position 8·0.25 = 2 → 4; median at 4 → 5; Q3 at 6 → 7
  assert.deepEqual([s.q1, s.median, s.q3], [4, 5, 7]);
  // IQR 3: fences 4 − 4.5 = −0.5 and 7 + 4.5 = 11.5; only 100 (row 4) lies outside
  assert.deepEqual(c.outliers, {
    method: "iqr",
    k: 1.5,
    lower: -0.5,
    upper: 11.5,
    count: 1,
    examples: [{ row: 4, value: 100 }],
  });
});

Deno.test("profile: quantiles interpolate between ranks as numpy does", () => {
  // [1 2 3 4]: positions 0.75, 1.5, 2.25
  assert.deepEqual([0.25, 0.5, 0.75].map((q) => quantile([1, 2, 3, 4], q)), [1.75, 2.5, 3.25]);
});

Deno.test("profile: non-numeric columns list their most frequent values; row ids come from _id", () => {
  const rows = ["a", "b", "a", "c", "a", "b", "", null].map((v, i) => ({ _id: `r${i}`, v }));
  const p = ProfileParams.parse({ top: 2 });
  const [c] = profile(toTable(rows), p).columns;
  assert.deepEqual([c.kind, c.missing, c.distinct], ["non_numeric", 2, 3]);
  assert.deepEqual(c.top, [{ value: "a", count: 3 }, { value: "b", count: 2 }]);

  const [n] =
    profile(toTable([{ _id: "x1", n: 1 }, { _id: "x2", n: 1 }, { _id: "x3", n: 1 }, { _id: "x4", n: 50 }]), p)
      .columns;
  // sorted 1 1 1 50: Q1 at position 0.75 → 1; Q3 at 2.25 → 1 + (50 − 1)·0.25 = 13.25
  assert.deepEqual([n.numeric!.q1, n.numeric!.q3], [1, 13.25]);
  // IQR 12.25: upper fence 13.25 + 18.375 = 31.625, so 50 (row x4) is an outlier
  assert.deepEqual(n.outliers!.examples, [{ row: "x4", value: 50 }]);
  // mean 53/4 = 13.25 (the same number as Q3, by chance)
  close(n.numeric!.std, Math.sqrt(((1 - 13.25) ** 2 * 3 + (50 - 13.25) ** 2) / 3));
});
