import assert from "node:assert/strict";
import fc from "fast-check";
import {
  correlationMatrices,
  mergeShares,
  pairCoefficients,
  pairOrder,
  prepareColumn,
} from "../../../core/stats/correlation.ts";
import { kendallQuadratic } from "../../support/kendall_naive.ts";
import { inversionsWasm, ONE_LEVEL } from "../../../core/stats/kendall_wasm.ts";
import { Rng } from "../../../core/random.ts";

const col = (xs: (number | null)[]) => Float64Array.from(xs, (v) => v ?? NaN);
const at = (m: Float64Array, k: number, i: number, j: number) => m[i * k + j];
const ALL = ["pearson", "spearman", "kendall"] as const;

function close(actual: number, expected: number, tol: number, what: string) {
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: ${actual} vs ${expected}`);
}

Deno.test("correlations by hand: three rows, ties, and a pair whose gaps change the ranks", () => {
  // x = 1,2,3; y = 1,3,2: deviations (-1,0,1) and (-1,1,0) give r = 1/2; same ranks, so rho = 1/2;
  // pairs (1,2) and (1,3) concordant, (2,3) discordant: tau = 1/3.
  let m = correlationMatrices([col([1, 2, 3]), col([1, 3, 2])], ALL);
  close(at(m.pearson!, 2, 0, 1), 0.5, 1e-15, "pearson");
  close(at(m.spearman!, 2, 0, 1), 0.5, 1e-15, "spearman");
  close(at(m.kendall!, 2, 0, 1), 1 / 3, 1e-15, "kendall");

  // x = 1,1,2,3; y = 1,2,2,3: 4 concordant, 0 discordant, one pair tied in x only, one in y only:
  // tau-b = 4 / sqrt(5 · 5) = 0.8. Average ranks (1.5,1.5,3,4) and (1,2.5,2.5,4): rho = 3.75/4.5 = 5/6.
  m = correlationMatrices([col([1, 1, 2, 3]), col([1, 2, 2, 3])], ALL);
  close(at(m.kendall!, 2, 0, 1), 0.8, 1e-15, "kendall ties");
  close(at(m.spearman!, 2, 0, 1), 5 / 6, 1e-15, "spearman ties");

  // y has a gap in row 1: x is ranked again over rows 0,2,3,4 (1,3,4,5 → 1,2,3,4), y (5,4,1,2 → 4,3,1,2);
  // centred (-1.5,-.5,.5,1.5)·(1.5,.5,-1.5,-.5) = -4 over 5: rho = -0.8 (not what x's full ranks give).
  m = correlationMatrices([col([1, 2, 3, 4, 5]), col([5, null, 4, 1, 2])], ALL);
  close(at(m.spearman!, 2, 0, 1), -0.8, 1e-15, "spearman re-ranked");

  // Only rows 0 and 3 are complete: two points in falling order.
  m = correlationMatrices([col([1, 2, null, 4]), col([2, null, 3, 1])], ALL);
  for (const k of ALL) close(at(m[k]!, 2, 0, 1), -1, 1e-15, k);
});

Deno.test("correlations: a constant column has no coefficient, its diagonal included; others keep 1", () => {
  const m = correlationMatrices([col([1, 2, 3, 4]), col([5, 5, null, 5]), col([2, 1, 4, 3])], ALL);
  for (const k of ALL) {
    const mat = m[k]!;
    assert.ok([0, 1, 2].every((j) => Number.isNaN(at(mat, 3, 1, j)) && Number.isNaN(at(mat, 3, j, 1))), k);
    assert.equal(at(mat, 3, 0, 0), 1);
    assert.equal(at(mat, 3, 2, 2), 1);
  }
  // A pair that is constant only over the rows both have: no coefficient for that pair alone.
  const p = correlationMatrices([col([1, 1, 2]), col([3, 4, null])], ALL);
  for (const k of ALL) assert.ok(Number.isNaN(at(p[k]!, 2, 0, 1)), k);
});

// The fixed table below, with ties, gaps and a boolean column, against pandas 3.1.1 / scipy 1.17.1:
//
//   import pandas as pd
//   df = pd.DataFrame({"a": A, "b": B, "c": C, "d": [bool(x) for x in D]}, dtype=object) \
//          .astype({"a": float, "b": float, "c": float, "d": bool})
//   for m in ["pearson", "spearman", "kendall"]: print(m, repr(df.corr(method=m).values.tolist()))
//
// (A, B, C, D are the lists below, None for the gaps.) scipy's pearsonr/spearmanr/kendalltau on each
// pair's complete rows agree with these to 1e-15.
const A = [
  48.9,
  65.5,
  59.7,
  null,
  35.8,
  30.9,
  61.9,
  58.2,
  30.1,
  56.3,
  26.1,
  60.0,
  57.0,
  59.7,
  45.6,
  56.9,
  47.4,
  null,
  55.5,
  54.8,
  51.7,
  52.5,
  43.9,
  50.1,
  46.8,
  40.0,
  41.2,
  49.4,
  29.3,
  48.1,
];
const B = [4, 1, 2, 4, 2, null, 3, 3, 2, 1, 1, 3, 4, 4, 1, 3, 2, null, 1, 5, 1, 3, null, 2, 3, 4, 3, 5, 5, 3];
const C = [
  null,
  30,
  33,
  38,
  19,
  16,
  32,
  28,
  19,
  null,
  8,
  29,
  31,
  22,
  18,
  19,
  23,
  14,
  29,
  27,
  21,
  33,
  25,
  22,
  18,
  18,
  27,
  18,
  9,
  20,
];
const D = [0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1];
const PANDAS = {
  pearson: [
    [1.0, -0.014516753945796353, 0.7807830053087121, 0.3419915857309392],
    [-0.014516753945796353, 1.0, 0.03131310961944625, 0.2443388887126104],
    [0.7807830053087121, 0.03131310961944625, 1.0, 0.31347810902060824],
    [0.3419915857309392, 0.2443388887126104, 0.31347810902060824, 1.0],
  ],
  spearman: [
    [1.0, 0.005093105884145222, 0.7696825713954515, 0.34559224356481083],
    [0.005093105884145222, 1.0, 0.010312197087830655, 0.24834822137876902],
    [0.7696825713954515, 0.010312197087830655, 1.0, 0.28148554827482575],
    [0.34559224356481083, 0.24834822137876902, 0.28148554827482575, 1.0],
  ],
  kendall: [
    [1.0, 0.006851404621980082, 0.5881550149584428, 0.2875107779783847],
    [0.006851404621980082, 1.0, 0.011359969609849951, 0.22338875108890427],
    [0.5881550149584428, 0.011359969609849951, 1.0, 0.2374420263346605],
    [0.2875107779783847, 0.22338875108890427, 0.2374420263346605, 1.0],
  ],
};

Deno.test("correlations: a table with ties and gaps matches pandas/scipy to 1e-12", () => {
  const m = correlationMatrices([col(A), col(B), col(C), col(D)], ALL);
  for (const k of ALL) {
    for (let i = 0; i < 4; i++) {
      for (let j = 0; j < 4; j++) close(at(m[k]!, 4, i, j), PANDAS[k][i][j], 1e-12, k);
    }
  }
});

Deno.test("correlations: pairs computed apart and merged equal the whole", () => {
  const cols = [A, B, C, D].map(col);
  const prepared = cols.map((c) => prepareColumn(c, ALL));
  const whole = pairCoefficients(prepared, ALL);
  const order = pairOrder(prepared);
  const merged = mergeShares(
    [0, 1, 2].map((part) => pairCoefficients(prepared, ALL, order.filter((_, t) => t % 3 === part))),
  );
  for (const k of ALL) assert.deepEqual(merged[k], whole[k]);
});

Deno.test("pairOrder: each pair of columns that are not constant once, the most distinct values first", () => {
  // Distinct values: 4, 1 (constant), 2, 3 and 4.
  const cols = [[1, 2, 3, 4], [5, 5, 5, 5], [0, 1, 0, 1], [1, 2, 3, 3], [4, 3, 2, 1]].map((v) =>
    prepareColumn(col(v), ["kendall"])
  );
  // Cost = product of the distinct counts: 0~4: 16; 0~3, 3~4: 12; 0~2, 2~4: 8; 2~3: 6 (ties by number).
  const pairs = [...pairOrder(cols)].map((p) => `${Math.floor(p / 5)}~${p % 5}`);
  assert.deepEqual(pairs, ["0~4", "0~3", "3~4", "0~2", "2~4", "2~3"]);
});

const cell = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 6, arbitrary: fc.integer({ min: -4, max: 4 }) },
  { weight: 3, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
);

Deno.test("kendall: Knight's O(n log n) equals the O(n²) definition (ties, gaps, -0, big columns)", () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(cell, cell), { maxLength: 1500, size: "max" }), (pairs) => {
      const x = col(pairs.map((p) => p[0])), y = col(pairs.map((p) => p[1]));
      const tau = at(correlationMatrices([x, y], ["kendall"]).kendall!, 2, 0, 1);
      const ref = kendallQuadratic(x, y);
      const constant = (v: Float64Array) => new Set([...v].filter((t) => t === t)).size < 2;
      if (constant(x) || constant(y) || Number.isNaN(ref)) return Number.isNaN(tau);
      return Math.abs(tau - ref) < 1e-12;
    }),
    { numRuns: 200 },
  );
});

Deno.test("inversions: the WebAssembly counter equals the O(n²) count, with one trie and with two levels", () => {
  const quadratic = (seq: Int32Array) => {
    let inv = 0;
    for (let i = 0; i < seq.length; i++) for (let j = i + 1; j < seq.length; j++) if (seq[i] > seq[j]) inv++;
    return inv;
  };
  // Up to ONE_LEVEL values one trie, two bits per level (an odd width leaves the top level half
  // used); above it two levels. Every width from 1 to 20 bits is drawn.
  const distinct = fc.integer({ min: 0, max: 19 }).chain((b) =>
    fc.integer({ min: 2 ** b, max: 2 ** (b + 1) })
  );
  fc.assert(
    fc.property(
      distinct.chain((d) =>
        fc.tuple(
          fc.constant(d),
          fc.array(fc.integer({ min: 0, max: d - 1 }), { maxLength: 2000, size: "max" }),
        )
      ),
      ([d, values]) => {
        const seq = Int32Array.from(values);
        return inversionsWasm(seq, d) === quadratic(seq);
      },
    ),
    { numRuns: 300 },
  );
  // Values confined to a few buckets (many pairs within one) and a reversed run, where every pair is
  // inverted: n(n-1)/2, past 2^32 (the WebAssembly total is an i64).
  const n = 100_000;
  const near = Int32Array.from({ length: 3000 }, (_, i) => 70_000 + ((i * 7919) % 2500));
  assert.equal(inversionsWasm(near, 80_000), quadratic(near));
  // The widest one trie, the narrowest two levels, and the widest values there are (31 bits: the
  // lower 16 in the second level, the upper 15 in the first).
  const spread = (top: number) =>
    Int32Array.from({ length: 2000 }, (_, i) => Math.floor(((i * 7919) % 2000) / 1999 * top));
  for (const d of [ONE_LEVEL, ONE_LEVEL + 1, 2 ** 31 - 1]) {
    const seq = spread(d - 1);
    assert.equal(inversionsWasm(seq, d), quadratic(seq), `${d} values`);
  }
  assert.equal(inversionsWasm(Int32Array.from({ length: n }, (_, i) => n - 1 - i), n), (n * (n - 1)) / 2);
  assert.equal(
    inversionsWasm(Int32Array.from({ length: 60_000 }, (_, i) => 59_999 - i), 60_000),
    60_000 * 59_999 / 2,
  );
});

/** Average ranks by a comparator sort: the textbook way, for checking the radix-sorted one. */
function ranksSimple(v: number[]): number[] {
  const order = v.map((_, i) => i).sort((a, b) => v[a] - v[b]);
  const r = new Array<number>(v.length);
  for (let i = 0; i < order.length;) {
    let j = i;
    while (j < order.length && v[order[j]] === v[order[i]]) j++;
    for (let t = i; t < j; t++) r[order[t]] = (i + j + 1) / 2;
    i = j;
  }
  return r;
}

function pearsonSimple(x: number[], y: number[]): number {
  const mx = x.reduce((a, b) => a + b) / x.length, my = y.reduce((a, b) => a + b) / y.length;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < x.length; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}

Deno.test("spearman: equals Pearson of the textbook average ranks over each pair's complete rows", () => {
  // Gaps in one column, the other or both, sparse or most of the rows (so many left-out rows share a
  // rank, a bucket, or fall below every kept one), with heavy ties: ranks shifted by the left-out rows
  // must equal ranks computed afresh on the complete rows.
  const gappy = (nulls: number) =>
    fc.oneof(
      { weight: nulls, arbitrary: fc.constant(null) },
      { weight: 6, arbitrary: fc.integer({ min: -4, max: 4 }) },
      { weight: 3, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
    );
  const column = fc.constantFrom(0, 1, 12).chain((nulls) => fc.constant(gappy(nulls)));
  fc.assert(
    fc.property(
      column.chain((cx) =>
        column.chain((cy) => fc.array(fc.tuple(cx, cy), { maxLength: 1500, size: "max" }))
      ),
      (pairs) => {
        const x = col(pairs.map((p) => p[0])), y = col(pairs.map((p) => p[1]));
        const rho = at(correlationMatrices([x, y], ["spearman"]).spearman!, 2, 0, 1);
        const rows = [...x.keys()].filter((r) => x[r] === x[r] && y[r] === y[r]);
        const ref = rows.length < 2
          ? NaN
          : pearsonSimple(ranksSimple(rows.map((r) => x[r])), ranksSimple(rows.map((r) => y[r])));
        if (!Number.isFinite(ref)) return Number.isNaN(rho);
        return Math.abs(rho - ref) < 1e-12;
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("correlations: 5,000 rows (radix-sorted ranks) agree with textbook formulas on complete rows", () => {
  const rng = new Rng(3);
  const gen = (kind: number) =>
    Float64Array.from({ length: 5000 }, () => {
      if (rng.next() < 0.05) return NaN;
      const v = rng.normal() * 10;
      return kind === 0 ? v : kind === 1 ? Math.round(v / 5) : -Math.round(v);
    });
  const cols = [gen(0), gen(1), gen(2), gen(0)];
  const m = correlationMatrices(cols, ALL);
  for (let i = 0; i < 4; i++) {
    for (let j = i + 1; j < 4; j++) {
      const rows = [...cols[i].keys()].filter((r) => cols[i][r] === cols[i][r] && cols[j][r] === cols[j][r]);
      const x = rows.map((r) => cols[i][r]), y = rows.map((r) => cols[j][r]);
      close(at(m.pearson!, 4, i, j), pearsonSimple(x, y), 1e-12, `pearson ${i}${j}`);
      close(
        at(m.spearman!, 4, i, j),
        pearsonSimple(ranksSimple(x), ranksSimple(y)),
        1e-12,
        `spearman ${i}${j}`,
      );
      close(at(m.kendall!, 4, i, j), kendallQuadratic(cols[i], cols[j]), 1e-12, `kendall ${i}${j}`);
    }
  }
});
