/**
 * From the LP's real δ to integer flips, under the constraints the LP kept: n_flips ≤ C and newP in
 * the window always, and the plain rounding of docs/spatial-fairness.md (half to even) whenever that already satisfies
 * them. Plain rounding is re-implemented here from docs/spatial-fairness.md (numpy.round per region δ_i, or per
 * individual δ_j for overlapping regions), independently of core/spatial/mitigate/flips.ts.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { solveApprox } from "../../../../core/spatial/mitigate/approx.ts";
import { flipsFromUnits, roundUnderConstraints } from "../../../../core/spatial/mitigate/flips.ts";
import { buildProblem, type MitigationProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { hasSolution } from "../../../../core/spatial/mitigate/status.ts";
import { regionsOf } from "./fixtures.ts";

/** numpy.round: half to even (values here are exact binary fractions or solver output snapped). */
function npRound(v: number): number {
  const r = Math.round(v * 2) / 2, x = Math.abs(v - r) < 1e-9 ? r : v, f = Math.floor(x);
  return x - f === 0.5 ? (f % 2 === 0 ? f : f + 1) : Math.round(x);
}

/** Plain rounding of a unit solution, as docs/spatial-fairness.md states it, as flipped scope positions. */
function plainFlips(pr: MitigationProblem, x: Float64Array): number[] {
  const U = x.length, out: number[] = [];
  const members = (u: number) => [...pr.unitMembers.subarray(pr.unitMemStart[u], pr.unitMemStart[u + 1])];
  if (pr.overlapping) {
    // members by index take δ_j = 1 until |x_u| is spent, the next one the remainder; each rounds
    for (let u = 0; u < U; u++) {
      let left = Math.abs(x[u]) + 1e-12;
      for (const j of members(u)) {
        const d = Math.min(1, Math.max(0, left));
        left -= d;
        if (npRound(d) === 1) out.push(j);
      }
    }
  } else {
    const net = new Map<number, number>(), unitsOf = new Map<number, number[]>();
    for (let u = 0; u < U; u++) {
      const g = pr.unitRegStart[u + 1] > pr.unitRegStart[u] ? pr.unitRegions[pr.unitRegStart[u]] : -1;
      net.set(g, (net.get(g) ?? 0) + x[u]);
      unitsOf.set(g, [...(unitsOf.get(g) ?? []), u]);
    }
    for (const [g, v] of net) {
      const k = npRound(v), u = unitsOf.get(g)!.find((w) => pr.unitSign[w] === Math.sign(k));
      if (k !== 0 && u !== undefined) out.push(...members(u).slice(0, Math.abs(k)));
    }
  }
  return out.sort((a, b) => a - b);
}

/** newP after flipping `flips` of `labels`. */
const newPositives = (labels: Uint8Array, flips: Iterable<number>) => {
  let P = labels.reduce((a, b) => a + b, 0);
  for (const j of flips) P += labels[j] ? -1 : 1;
  return P;
};

const instance = fc.record({
  N: fc.integer({ min: 4, max: 40 }),
  R: fc.integer({ min: 1, max: 6 }),
  overlapping: fc.boolean(),
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  budget: fc.oneof(fc.constantFrom(0.05, 0.1, 0.2, 0.3), fc.integer({ min: 2, max: 6 })),
  prTol: fc.constantFrom(0, 0, 0.02, 0.05, 0.1, 0.3),
}).map(({ N, R, overlapping, seed, budget, prTol }) => {
  // a small LCG from the seed: labels, then memberships (some individuals in no region)
  let s = seed;
  const next = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const labels = Uint8Array.from({ length: N }, () => (next() < 0.45 ? 1 : 0));
  const members: number[][] = Array.from({ length: R }, () => []);
  for (let j = 0; j < N; j++) {
    if (next() < 0.1) continue;
    if (!overlapping) members[Math.floor(next() * R)].push(j);
    else for (let r = 0; r < R; r++) if (next() < 0.4 || r === j % R) members[r].push(j);
  }
  return { labels, regions: regionsOf(members), budget, prTol };
});

Deno.test("approx → flips on random small instances: n_flips ≤ C, newP in the window, plain rounding when it fits", async () => {
  let plainFeasible = 0, repaired = 0;
  await fc.assert(
    fc.asyncProperty(instance, async (inst) => {
      const pr = buildProblem(inst.labels, inst.regions, inst);
      const sol = await solveApprox(pr, 10);
      if (!sol.unitDelta || !hasSolution(sol.status)) return;
      const flips = [...flipsFromUnits(pr, sol.unitDelta)];
      const [lo, hi] = [pr.P + pr.dMin, pr.P + pr.dMax], newP = newPositives(inst.labels, flips);
      assert.ok(flips.length <= pr.C, `${flips.length} flips > C = ${pr.C}`);
      assert.ok(newP >= lo && newP <= hi, `newP ${newP} outside [${lo}, ${hi}]`);
      const plain = plainFlips(pr, sol.unitDelta), plainP = newPositives(inst.labels, plain);
      if (plain.length <= pr.C && plainP >= lo && plainP <= hi) {
        plainFeasible++;
        assert.deepEqual(flips, plain);
      } else repaired++;
    }),
    { numRuns: 150, seed: 7 },
  );
  // the generator is tight enough to exercise both branches
  assert.ok(plainFeasible > 0 && repaired > 0, `${plainFeasible} plain, ${repaired} repaired`);
});

/** A real solution of the LP's constraints: values in their ranges (multiples of 1/8, so exact halves
 * occur), Σ an integer D (the last value absorbs the fraction), and the slack of C and the window. */
const lpSolution = fc.record({
  units: fc.array(
    fc.record({ lo: fc.integer({ min: -4, max: 0 }), hi: fc.integer({ min: 0, max: 4 }), t: fc.nat(8) }),
    { minLength: 2, maxLength: 8 },
  ),
  slack: fc.integer({ min: 0, max: 2 }),
  below: fc.integer({ min: 0, max: 2 }),
  above: fc.integer({ min: 0, max: 2 }),
}).map((r) => {
  const values = r.units.map((u) => u.lo + Math.round((u.hi - u.lo) * u.t) / 8);
  const last = values.length - 1, sum = values.reduce((a, b) => a + b, 0);
  values[last] -= sum - Math.round(sum);
  return { ...r, values };
}).filter(({ units, values }) => values.at(-1)! >= units.at(-1)!.lo && values.at(-1)! <= units.at(-1)!.hi);

Deno.test("roundUnderConstraints on any LP-feasible point: within ranges and constraints, Σ k = the LP's D, plain when it fits", () => {
  fc.assert(
    fc.property(lpSolution, ({ units, values, slack, below, above }) => {
      const D = Math.round(values.reduce((a, b) => a + b, 0));
      const C = Math.ceil(values.reduce((a, b) => a + Math.abs(b), 0) - 1e-9) + slack;
      const dMin = Math.min(0, D) - below, dMax = Math.max(0, D) + above;
      const lo = Int32Array.from(units, (u) => u.lo), hi = Int32Array.from(units, (u) => u.hi);
      const k = roundUnderConstraints({
        values: Float64Array.from(values),
        lo,
        hi,
        plain: npRound,
        C,
        dMin,
        dMax,
      });
      const used = k.reduce((a, b) => a + Math.abs(b), 0), sum = k.reduce((a, b) => a + b, 0);
      k.forEach((v, g) => assert.ok(v >= lo[g] && v <= hi[g] && Math.abs(v - values[g]) < 1));
      assert.ok(used <= C && sum >= dMin && sum <= dMax, `k = ${k}, C = ${C}, window [${dMin}, ${dMax}]`);
      const plain = values.map((v) => npRound(v) + 0); // + 0: -0 is 0 in an Int32Array
      const plainOk = plain.reduce((a, b) => a + Math.abs(b), 0) <= C &&
        plain.reduce((a, b) => a + b, 0) >= dMin && plain.reduce((a, b) => a + b, 0) <= dMax;
      if (plainOk) assert.deepEqual([...k], plain);
      else assert.equal(sum, D);
    }),
    { numRuns: 2000, seed: 11 },
  );
});

Deno.test("roundUnderConstraints by hand: the window and the budget plain rounding breaks", () => {
  const r = (values: number[], C: number, dMin: number, dMax: number) => [...roundUnderConstraints({
    values: Float64Array.from(values),
    lo: Int32Array.from(values, () => -5),
    hi: Int32Array.from(values, () => 5),
    plain: npRound,
    C,
    dMin,
    dMax,
  })];
  // s = 0, δ = (0.5, 0.5, -1): plain (0, 0, -1) moves newP by -1; truncation (0, 0, -1) and the one
  // missing +1 goes to the first of the two equal remainders → (1, 0, -1), 2 flips ≤ C = 2
  assert.deepEqual(r([0.5, 0.5, -1], 2, 0, 0), [1, 0, -1]);
  // δ = (0.6, -0.6), Σ|δ| = 1.2 ≤ C = 1 + 0.2: plain (1, -1) is 2 flips > C = 1; truncation (0, 0)
  assert.deepEqual(r([0.6, -0.6], 1, -1, 1), [0, 0]);
  // δ = (1.5, 1.5, 0.25, -0.25): plain (2, 2, 0, 0) = 4 flips > C = 3; truncation (1, 1, 0, 0) gives
  // D = 2; round(Σ δ) = 3 wants one more: the largest remainder is 0.5 (twice), the first takes it
  // → (2, 1, 0, 0)
  assert.deepEqual(r([1.5, 1.5, 0.25, -0.25], 3, 0, 4), [2, 1, 0, 0]);
  // plain rounding feasible: kept as is, even where truncation would differ
  assert.deepEqual(r([1.5, 0.7, -0.2], 5, -5, 5), [2, 1, 0]);
});
