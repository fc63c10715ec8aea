import assert from "node:assert/strict";
import fc from "fast-check";
import { argsortPresent } from "../../../core/stats/sort.ts";

/** The order by a comparator sort: present rows by value, ties (−0 and +0 among them) in row order. */
function argsortSimple(v: Float64Array): number[] {
  const rows = [...v.keys()].filter((r) => v[r] === v[r]);
  return rows.sort((a, b) => (v[a] < v[b] ? -1 : v[a] > v[b] ? 1 : a - b));
}

/** Doubles that stress the radix's keys: close neighbours in the low mantissa bits, signs, ±0, ±∞. */
const base = fc.constantFrom(0, 1, -1, 1.7e9, -3.5e-7, 2 ** 40, 123.456);
const cell = fc.oneof(
  fc.double({ noNaN: false }),
  fc.tuple(base, fc.integer({ min: -40, max: 40 })).map(([b, k]) =>
    b + k * 2 ** -52 * Math.max(1, Math.abs(b))
  ),
  fc.tuple(base, fc.integer({ min: 0, max: 3000 })).map(([b, k]) => b + k * 1e-3),
  fc.constantFrom(0, -0, Infinity, -Infinity, NaN, 5e-324, -5e-324),
);

Deno.test("argsortPresent orders as a comparator sort does, past the radix threshold and below it", () => {
  fc.assert(
    fc.property(fc.array(cell, { maxLength: 3000, size: "max" }), (xs) => {
      const v = Float64Array.from(xs);
      const { rows, hi, lo } = argsortPresent(v);
      const expected = argsortSimple(v);
      if (rows.length !== expected.length || rows.some((r, k) => r !== expected[k])) return false;
      // Equal keys exactly for equal values, so tie groups can be read off the keys.
      for (let k = 1; k < rows.length; k++) {
        const sameKey = hi[k] === hi[k - 1] && lo[k] === lo[k - 1];
        if (sameKey !== (v[rows[k]] === v[rows[k - 1]])) return false;
      }
      return true;
    }),
    { numRuns: 150, endOnFailure: true }, // shrinking thousands of doubles takes minutes
  );
});

Deno.test("argsortPresent: 100,000 values in one run of equal upper bits (timestamps a microsecond apart)", () => {
  // 1.7e9 + k·1e-6: every value shares sign, exponent and the first 20 mantissa bits with most others,
  // so the order comes from the lower 32 bits: the long-run path. Shuffled, with a few repeats.
  const n = 100_000;
  const v = new Float64Array(n);
  let s = 7;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    v[i] = 1.7e9 + (s % 90_000) * 1e-6;
  }
  const { rows } = argsortPresent(v);
  const expected = argsortSimple(v);
  assert.equal(rows.length, n);
  assert.equal(rows.findIndex((r, k) => r !== expected[k]), -1, "first position out of order");
});
