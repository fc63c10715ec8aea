/**
 * frozen_regions and max_flips_per_region (issue 37): on small random instances, enumerating every set of
 * individuals to flip (independent of the solvers' units) finds the best objective among the flips that
 * keep the budget, the rate window, the frozen regions and the caps; PROMIS-Exact reaches it, and both
 * methods keep every constraint.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { relabel, type RelabelInput } from "../../../../core/spatial/mitigate/relabel.ts";
import { buildProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { regionsOf } from "./fixtures.ts";
import { ll } from "./exact_reference.ts";

/** Σ_i max(0, l1_i - l0) of predictions y over regions `members`. */
function exactStat(y: Uint8Array, members: number[][]): number {
  const N = y.length, P = y.reduce((a, b) => a + b, 0), l0 = ll(P, N);
  let sum = 0;
  for (const reg of members) {
    const n = reg.length, p = reg.reduce((a, j) => a + y[j], 0);
    if (n > 0 && n < N) sum += Math.max(0, ll(p, n) + ll(P - p, N - n) - l0);
  }
  return sum;
}

interface Case {
  labels: Uint8Array;
  members: number[][];
  frozen: number[];
  maxFlips: number | null;
  budget: number;
  prTol: number;
}

/** Up to 9 individuals in up to 4 overlapping regions (individual 0 in regions 0 and 1). */
const cases: fc.Arbitrary<Case> = fc.tuple(fc.integer({ min: 3, max: 9 }), fc.integer({ min: 2, max: 4 }))
  .chain(([N, R]) =>
    fc.record({
      labels: fc.array(fc.boolean(), { minLength: N, maxLength: N }),
      inRegion: fc.array(fc.array(fc.boolean(), { minLength: R, maxLength: R }), {
        minLength: N,
        maxLength: N,
      }),
      frozen: fc.subarray(Array.from({ length: R }, (_, r) => r), { maxLength: 2 }),
      maxFlips: fc.constantFrom(null, 0.3, 0.5, 1, 2),
      budget: fc.constantFrom(0.3, 0.5, 1, 3),
      prTol: fc.constantFrom(0, 0.2, 1),
    })
  ).map((c) => {
    const R = c.inRegion[0].length, members: number[][] = Array.from({ length: R }, () => []);
    c.inRegion.forEach((row, j) => row.forEach((b, r) => (b || (j === 0 && r < 2)) && members[r].push(j)));
    return { ...c, labels: Uint8Array.from(c.labels, Number), members };
  });

type Window = { C: number; P: number; dMin: number; dMax: number };

/** Up to 9 individuals, each in one of up to 4 regions or in none: disjoint regions. */
const disjointCases: fc.Arbitrary<Case> = fc.tuple(
  fc.integer({ min: 3, max: 9 }),
  fc.integer({ min: 2, max: 4 }),
)
  .chain(([N, R]) =>
    fc.record({
      labels: fc.array(fc.boolean(), { minLength: N, maxLength: N }),
      regionOf: fc.array(fc.integer({ min: -1, max: R - 1 }), { minLength: N, maxLength: N }),
      R: fc.constant(R),
      frozen: fc.subarray(Array.from({ length: R }, (_, r) => r), { maxLength: 2 }),
      maxFlips: fc.constantFrom(null, 0.3, 0.5, 1, 2),
      budget: fc.constantFrom(0.3, 0.5, 1, 3),
      prTol: fc.constantFrom(0, 0.2, 1),
    })
  ).map((c) => {
    const members: number[][] = Array.from({ length: c.R }, () => []);
    c.regionOf.forEach((r, j) => r >= 0 && members[r].push(j));
    return { ...c, labels: Uint8Array.from(c.labels, Number), members };
  });

/** Whether flipping the set `flip` (a bit mask over individuals) keeps every constraint of the case. */
const keeps = (c: Case, flip: number, pr: Window) =>
  keepsSet(
    c,
    new Set(Array.from({ length: c.labels.length }, (_, j) => j).filter((j) => flip & (1 << j))),
    pr,
  );

/** Whether flipping the individuals `flip` keeps every constraint of the case. */
function keepsSet(c: Case, flip: Set<number>, pr: Window): boolean {
  // with disjoint regions an individual in no region has no variable and never flips (the documented
  // per-region model, docs/spatial-fairness.md "units")
  const count = new Int32Array(c.labels.length);
  for (const m of c.members) for (const j of m) count[j]++;
  const disjoint = count.every((k) => k <= 1);
  let used = 0, D = 0;
  for (const j of flip) {
    if (disjoint && count[j] === 0) return false;
    (used++, D += c.labels[j] ? -1 : 1);
  }
  if (used > pr.C || D < pr.dMin || D > pr.dMax) return false;
  return c.members.every((m, r) => {
    const flips = m.filter((j) => flip.has(j)).length;
    if (c.frozen.includes(r) && flips > 0) return false;
    if (c.maxFlips === null) return true;
    const cap = c.maxFlips <= 1 ? Math.floor(c.maxFlips * m.length + 1e-9) : Math.floor(c.maxFlips);
    return flips <= cap;
  });
}

/** The best objective over every set of individuals whose flips keep the constraints. */
function bruteForce(c: Case, pr: { C: number; P: number; dMin: number; dMax: number }): number {
  let best = Infinity;
  for (let flip = 0; flip < 1 << c.labels.length; flip++) {
    if (!keeps(c, flip, pr)) continue;
    const y = Uint8Array.from(c.labels, (v, j) => (flip & (1 << j) ? v ^ 1 : v));
    best = Math.min(best, exactStat(y, c.members));
  }
  return best;
}

function input(c: Case, approx: boolean): RelabelInput {
  const N = c.labels.length;
  return {
    yPred: c.labels,
    yTrue: null,
    scope: Int32Array.from({ length: N }, (_, j) => j),
    regions: regionsOf(c.members),
    approx,
    budget: c.budget,
    prTol: c.prTol,
    workLimitSeconds: 10,
    frozen: c.frozen,
    maxFlips: c.maxFlips,
  };
}

/** The flipped individuals as a bit mask. */
const maskOf = (flipped: Int32Array) => flipped.reduce((a, j) => a | (1 << j), 0);

Deno.test("exact with frozen regions and caps: the brute-force optimum, every constraint kept", async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(cases, disjointCases), async (c) => {
      const pr = buildProblem(c.labels, regionsOf(c.members), c);
      const r = await relabel(input(c, false));
      assert.equal(r.status.code, 0, r.status.detail);
      assert.ok(keeps(c, maskOf(r.flipped), pr), `flipped ${[...r.flipped]}`);
      const opt = bruteForce(c, pr), got = exactStat(r.mitigatedPreds, c.members);
      assert.ok(Math.abs(got - opt) <= 1e-9 * Math.max(1, opt), `objective ${got}, optimum ${opt}`);
    }),
    { numRuns: 800, seed: 371 },
  );
});

Deno.test("approx with frozen regions and caps: every constraint kept after rounding", async () => {
  await fc.assert(
    fc.asyncProperty(fc.oneof(cases, disjointCases), async (c) => {
      const pr = buildProblem(c.labels, regionsOf(c.members), c);
      const r = await relabel(input(c, true));
      assert.equal(r.status.code, 0, r.status.detail);
      assert.ok(keeps(c, maskOf(r.flipped), pr), `flipped ${[...r.flipped]}`);
      assert.ok(r.bound! <= r.objective! + 1e-9);
    }),
    { numRuns: 300, seed: 372 },
  );
});

Deno.test("frozen regions by hand: region 0 frozen keeps its members, the rest of the budget goes elsewhere", async () => {
  // regions 0 = {0..3} (4 positives), 1 = {4..7} (0 positives); P = 4 of 8, rates 1 and 0: the best
  // flips move both toward 1/2, but with region 0 frozen only region 1's members may flip up
  const c: Case = {
    labels: Uint8Array.of(1, 1, 1, 1, 0, 0, 0, 0),
    members: [[0, 1, 2, 3], [4, 5, 6, 7]],
    frozen: [0],
    maxFlips: null,
    budget: 2,
    prTol: 1,
  };
  for (const approx of [false, true]) {
    const r = await relabel(input(c, approx));
    assert.equal(r.status.code, 0);
    assert.ok(r.flipped.length > 0 && r.flipped.every((j) => j >= 4), `${[...r.flipped]}`);
  }
  // a cap of 1 per region: one flip in each region at most
  const capped = await relabel(input({ ...c, frozen: [], maxFlips: 1.5 }, false));
  assert.deepEqual([...capped.regionFlips.toPositive].map((v, i) => v + capped.regionFlips.toNegative[i]), [
    1,
    1,
  ]);
});

Deno.test("exact past 24 units (bound, local search, search) keeps frozen regions and caps", async () => {
  // 400 individuals, 12 overlapping regions of random members: hundreds of units
  let seed = 5;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const labels = Uint8Array.from({ length: 400 }, () => (rnd() < 0.4 ? 1 : 0));
  const members = Array.from(
    { length: 12 },
    (_, r) =>
      Array.from({ length: 400 }, (_, j) => j).filter((j) => rnd() < (labels[j] && r < 4 ? 0.6 : 0.3)),
  );
  for (const [frozen, maxFlips] of [[[0, 5], null], [[], 0.05], [[2], 3]] as const) {
    const c: Case = { labels, members, frozen: [...frozen], maxFlips, budget: 0.2, prTol: 0.1 };
    const pr = buildProblem(labels, regionsOf(members), c);
    assert.ok(pr.unitSign.length > 24, `${pr.unitSign.length} units`);
    const r = await relabel({ ...input(c, false), workLimitSeconds: 2 });
    assert.ok(r.status.code === 0 || r.status.code === 1, r.status.detail);
    assert.ok(r.flipped.length > 0);
    assert.ok(keepsSet(c, new Set(r.flipped), pr), `${frozen} ${maxFlips}: constraints broken`);
    assert.ok(
      Math.abs(exactStat(r.mitigatedPreds, members) - r.objective!) < 1e-9 * Math.max(1, r.objective!),
    );
  }
});
