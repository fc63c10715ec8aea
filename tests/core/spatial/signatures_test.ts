import assert from "node:assert/strict";
import { signatures } from "../../../core/spatial/signatures.ts";
import { aliasDraw, binomialTables } from "../../../core/spatial/binomial.ts";
import { Rng } from "../../../core/random.ts";
import fc from "fast-check";

/** Signatures the plain way: each individual's set of regions written out, grouped by that text. */
function naiveSignatures(n: number, members: Int32Array[]) {
  const sets: number[][] = Array.from({ length: n }, () => []);
  members.forEach((m, r) => m.forEach((i) => sets[i].push(r)));
  const index = new Map<string, number>(), of: number[] = [], count: number[] = [], regs: number[][] = [];
  sets.forEach((set) => {
    const key = set.join(",");
    if (!index.has(key)) (index.set(key, count.length), count.push(0), regs.push(set));
    of.push(index.get(key)!);
    count[index.get(key)!]++;
  });
  const regStart = [0];
  for (const r of regs) regStart.push(regStart[regStart.length - 1] + r.length);
  return { of, count, regStart, regs: regs.flat() };
}

Deno.test("signatures: individuals with the same set of regions share one, in order of first appearance", () => {
  // N = 6; region A = {0,1,2}, B = {2,3}: signatures {A}: 0,1; {A,B}: 2; {B}: 3; {}: 4,5.
  const s = signatures(6, [Int32Array.of(0, 1, 2), Int32Array.of(2, 3)]);
  assert.deepEqual(Array.from(s.of), [0, 0, 1, 2, 3, 3]);
  assert.deepEqual(Array.from(s.count), [2, 1, 1, 2]);
  assert.deepEqual(Array.from(s.regStart), [0, 1, 3, 4, 4]);
  assert.deepEqual(Array.from(s.regs), [0, 0, 1, 1]);
});

Deno.test("signatures: equal the grouping of individuals by their written-out region sets (property)", () => {
  const arb = fc.integer({ min: 1, max: 40 }).chain((n) =>
    fc.tuple(
      fc.constant(n),
      fc.array(fc.uniqueArray(fc.integer({ min: 0, max: n - 1 }), { maxLength: n }), { maxLength: 12 }),
    )
  );
  fc.assert(
    fc.property(arb, ([n, lists]) => {
      const members = lists.map((l) => Int32Array.from(l.sort((a, b) => a - b)));
      const s = signatures(n, members), want = naiveSignatures(n, members);
      assert.deepEqual(
        { of: [...s.of], count: [...s.count], regStart: [...s.regStart], regs: [...s.regs] },
        want,
      );
    }),
    { numRuns: 500 },
  );
});

Deno.test("signatures: disjoint regions give R + 1 signatures whatever N is", () => {
  const n = 10_000, R = 7;
  const members = Array.from(
    { length: R },
    (_, r) => Int32Array.from({ length: 1000 }, (_, j) => r * 1000 + j),
  );
  const s = signatures(n, members);
  assert.equal(s.count.length, R + 1);
  assert.equal(s.count.reduce((a, b) => a + b), n);
});

/** Binomial(c, p) pmf by the product formula, for the chi-square expectations. */
function pmf(c: number, p: number): number[] {
  const out: number[] = [];
  for (let k = 0; k <= c; k++) {
    let lc = 0;
    for (let j = 1; j <= k; j++) lc += Math.log((c - k + j) / j);
    out.push(Math.exp(lc + k * Math.log(p) + (c - k) * Math.log(1 - p)));
  }
  return out;
}

Deno.test("alias tables: Binomial(20, 0.3) draws pass a chi-square test against the exact pmf", () => {
  const tb = binomialTables(Int32Array.of(20, 1, 20), 0.3);
  assert.deepEqual(Array.from(tb.tableOf), [0, 1, 0]); // one table per distinct count
  const rng = new Rng(9), n = 200_000, obs = new Array(21).fill(0);
  for (let i = 0; i < n; i++) obs[aliasDraw(tb, 0, rng.next())]++;
  // Pool the cells with expectation < 5 into their neighbours' tails: k ≤ 1 and k ≥ 13.
  const e = pmf(20, 0.3).map((q) => q * n);
  const pool = (a: number[]) => [a[0] + a[1], ...a.slice(2, 13), a.slice(13).reduce((s, x) => s + x, 0)];
  const O = pool(obs), E = pool(e);
  const chi2 = O.reduce((s, o, k) => s + (o - E[k]) ** 2 / E[k], 0);
  // 13 cells, df 12: the 0.999 quantile of chi-square(12) is 32.9.
  assert.ok(chi2 < 32.9, `chi2 ${chi2}`);
  // Binomial(1, 0.3): P(1) = 0.3 up to rounding of the table.
  let ones = 0;
  for (let i = 0; i < n; i++) ones += aliasDraw(tb, 1, rng.next());
  assert.ok(Math.abs(ones / n - 0.3) < 5 * Math.sqrt(0.21 / n));
});

Deno.test("alias tables: a large count, Binomial(100000, 0.01), has the right mean and variance", () => {
  const c = 100_000, p = 0.01, tb = binomialTables(Int32Array.of(c), p);
  assert.ok(tb.size[0] < 2000, `support cut to ${tb.size[0]} values`);
  const rng = new Rng(2), n = 50_000;
  let s = 0, s2 = 0;
  for (let i = 0; i < n; i++) {
    const x = aliasDraw(tb, 0, rng.next());
    s += x;
    s2 += x * x;
  }
  const mean = s / n, v = s2 / n - mean * mean, mu = c * p, sd = Math.sqrt(c * p * (1 - p));
  assert.ok(Math.abs(mean - mu) < 5 * sd / Math.sqrt(n), `mean ${mean}`);
  // The variance of a sample variance is about 2σ⁴/n for a near-normal law.
  assert.ok(Math.abs(v - sd * sd) < 5 * Math.sqrt(2 / n) * sd * sd, `variance ${v}`);
});
