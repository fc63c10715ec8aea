import assert from "node:assert/strict";
import fc from "fast-check";
import {
  buildProblem,
  flipBudget,
  rateWindow,
  unitRegion,
} from "../../../../core/spatial/mitigate/problem.ts";
import { regionsOf } from "./fixtures.ts";
import { planAudit, planSignatures } from "../../../../core/spatial/plan.ts";
import { signatures } from "../../../../core/spatial/signatures.ts";

Deno.test("budget: ≤ 1 is floor(fraction·N), > 1 a count; float products snap to the integer they mean", () => {
  assert.equal(flipBudget(0.2, 10), 2);
  assert.equal(flipBudget(0.25, 10), 2); // 2.5 → 2
  assert.equal(flipBudget(0.29, 100), 29); // 0.29·100 = 28.999999999999996 in doubles
  assert.equal(flipBudget(1, 7), 7); // 1 is the whole scope, not one flip
  assert.equal(flipBudget(2.7, 10), 2);
  assert.equal(flipBudget(0, 10), 0);
  assert.throws(() => flipBudget(-0.1, 10), RangeError);
  assert.throws(() => flipBudget(NaN, 10), RangeError);
});

Deno.test("rate window: [ceil(max(0,(1-s)P)), floor(min(N,(1+s)P))], snapping float noise; s = 0 gives [P, P]", () => {
  assert.deepEqual(rateWindow(10, 30, 0.1), [9, 11]);
  assert.deepEqual(rateWindow(10, 30, 0.15), [9, 11]); // 8.5 → 9, 11.5 → 11 (rounded inwards)
  assert.deepEqual(rateWindow(10, 30, 0.7), [3, 17]); // (1-0.7)·10 = 3.0000000000000004 must give 3, not 4
  assert.deepEqual(rateWindow(10, 30, 0), [10, 10]);
  assert.deepEqual(rateWindow(8, 10, 0.5), [4, 10]); // (1+s)P = 12 is cut at N
  assert.deepEqual(rateWindow(5, 10, 2), [0, 10]); // (1-s)P < 0 is cut at 0
  assert.deepEqual(rateWindow(0, 10, 0.5), [0, 0]);
  assert.throws(() => rateWindow(5, 10, -0.1), RangeError);
});

Deno.test("problem: N, P, C, window of D within ±C; units of interchangeable individuals", () => {
  // regions {0,1,2,3} and {4,5}; 6 and 7 in no region; labels 1 0 1 0 | 1 1 | 0 1
  const labels = Uint8Array.from([1, 0, 1, 0, 1, 1, 0, 1]);
  const pr = buildProblem(labels, regionsOf([[0, 1, 2, 3], [4, 5]]), { budget: 0.25, prTol: 0.5 });
  assert.equal(pr.N, 8);
  assert.equal(pr.P, 5);
  assert.equal(pr.C, 2);
  // window [ceil(2.5), floor(7.5)] = [3, 7] → D ∈ [-2, 2] after the budget
  assert.deepEqual([pr.dMin, pr.dMax], [-2, 2]);
  assert.equal(pr.overlapping, false);
  assert.deepEqual([...pr.n], [4, 2]);
  assert.deepEqual([...pr.p], [2, 2]);
  // units in first-seen order: (r0,1) (r0,0) (r1,1); 6 and 7 in no region have none (disjoint model)
  assert.deepEqual([...pr.unitSign], [-1, 1, -1]);
  assert.deepEqual([...pr.unitCount], [2, 2, 2]);
  const members = (u: number) => [...pr.unitMembers.subarray(pr.unitMemStart[u], pr.unitMemStart[u + 1])];
  assert.deepEqual([0, 1, 2].map(members), [[0, 2], [1, 3], [4, 5]]);
  const regs = (u: number) => [...pr.unitRegions.subarray(pr.unitRegStart[u], pr.unitRegStart[u + 1])];
  assert.deepEqual([0, 1, 2].map(regs), [[0], [0], [1]]);
  assert.deepEqual([0, 1, 2].map((u) => unitRegion(pr, u)), [0, 0, 1]);
});

Deno.test("problem: overlapping regions group individuals by signature and label", () => {
  const labels = Uint8Array.from([1, 1, 0, 0, 1]);
  const pr = buildProblem(labels, regionsOf([[0, 1, 2, 4], [1, 2, 3, 4]]), { budget: 1, prTol: 0 });
  assert.equal(pr.overlapping, true);
  assert.deepEqual([pr.dMin, pr.dMax], [0, 0]); // s = 0: Σδ = 0
  // signatures: {0}:[0]  {0,1}:[1,2,4]  {1}:[3] → units (sig,label): ({0},1) ({0,1},1)=[1,4] ({0,1},0)=[2] ({1},0)
  assert.deepEqual([...pr.unitCount], [1, 2, 1, 1]);
  assert.deepEqual([...pr.unitSign], [-1, -1, 1, 1]);
  // with overlapping regions an individual in no region is a unit (the model's δ_j for every individual)
  const withNone = buildProblem(Uint8Array.from([...labels, 1]), regionsOf([[0, 1, 2, 4], [1, 2, 3, 4]]), {
    budget: 1,
    prTol: 0,
  });
  assert.deepEqual([...withNone.unitCount], [1, 2, 1, 1, 1]);
  assert.equal(withNone.unitRegStart[5] - withNone.unitRegStart[4], 0);
  // no single region to name there: unit ({0,1},1) is in two, the last unit in none
  assert.throws(() => unitRegion(withNone, 1), /not in exactly one region/);
  assert.throws(() => unitRegion(withNone, 4), /not in exactly one region/);
});

Deno.test("problem: units are exactly the individuals grouped by (set of regions, label), in first-seen order", () => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 40 }).chain((N) =>
      fc.record({
        labels: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: N, maxLength: N }),
        regions: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: N - 1 })), { maxLength: 8 }),
      })
    ),
    ({ labels, regions }) => {
      const members = regions.map((m) => m.sort((a, b) => a - b));
      const pr = buildProblem(Uint8Array.from(labels), regionsOf(members), { budget: 1, prTol: 1 });
      // by hand: each individual's region list as text, with its label
      const setOf = labels.map((_, j) => members.flatMap((m, r) => (m.includes(j) ? [r] : [])));
      const overlapping = setOf.some((s) => s.length > 1);
      assert.equal(pr.overlapping, overlapping);
      const units = new Map<string, number[]>();
      labels.forEach((y, j) => {
        if (!overlapping && setOf[j].length === 0) return; // disjoint: no unit for those in no region
        const key = `${setOf[j].join(",")}|${y}`;
        units.set(key, [...(units.get(key) ?? []), j]);
      });
      const expected = [...units.values()];
      assert.equal(pr.unitSign.length, expected.length);
      expected.forEach((js, u) => {
        assert.deepEqual([...pr.unitMembers.subarray(pr.unitMemStart[u], pr.unitMemStart[u + 1])], js);
        assert.equal(pr.unitCount[u], js.length);
        assert.equal(pr.unitSign[u], labels[js[0]] ? -1 : 1);
        assert.deepEqual(
          [...pr.unitRegions.subarray(pr.unitRegStart[u], pr.unitRegStart[u + 1])],
          setOf[js[0]],
        );
      });
    },
  ));
});

Deno.test("problem: an audit plan's signatures (planSignatures) give the problem built without them", () => {
  fc.assert(fc.property(
    fc.integer({ min: 1, max: 30 }).chain((N) =>
      fc.record({
        labels: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: N, maxLength: N }),
        regions: fc.array(fc.uniqueArray(fc.integer({ min: 0, max: N - 1 })), { maxLength: 7 }),
        full: fc.array(fc.integer({ min: 0, max: 7 }), { maxLength: 2 }),
        rng: fc.constantFrom("fast" as const, "numpy" as const),
      })
    ),
    ({ labels, regions, full, rng }) => {
      const N = labels.length, members = regions.map((m) => m.sort((a, b) => a - b));
      // regions of everyone (not scored by the plan) at some places among the others
      for (const at of full) members.splice(Math.min(at, members.length), 0, [...Array(N).keys()]);
      const regs = regionsOf(members), y = Uint8Array.from(labels);
      const known = planSignatures(planAudit(y, regs, rng), regs);
      assert.deepEqual(known, signatures(N, regs.members));
      const params = { budget: 1, prTol: 1 };
      assert.deepEqual(buildProblem(y, regs, params, known), buildProblem(y, regs, params));
    },
  ));
});
