import assert from "node:assert/strict";
import { Rng } from "../../../../core/random.ts";
import { relabel } from "../../../../core/spatial/mitigate/relabel.ts";
import { buildProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { solveApprox } from "../../../../core/spatial/mitigate/approx.ts";
import { solveExactOverlapping } from "../../../../core/spatial/mitigate/exact_overlapping.ts";
import { unitFlipCounts } from "../../../../core/spatial/mitigate/flips.ts";
import {
  type FixedSolution,
  groupsOf,
  regionBound,
  solveFixedD,
} from "../../../../core/spatial/mitigate/exact_fixed_rate.ts";
import fc from "fast-check";
import { solveFixedDWarm } from "../../../../core/spatial/mitigate/exact_fixed_rate_warm.ts";
import { xlogxTable } from "../../../../core/spatial/statistic.ts";
import { rawStat } from "../../../../core/spatial/statistic.ts";
import { disjointInstance } from "../../../../bench/mitigate_fixtures.ts";
import { bruteForce, close, randomInstance, totalStat } from "./fixtures.ts";

for (const overlapping of [false, true]) {
  Deno.test(`exact = brute force over every set of flips (${overlapping ? "overlapping" : "disjoint"}, 40 instances)`, async () => {
    const rng = new Rng(overlapping ? 7 : 3);
    let improved = 0;
    for (let it = 0; it < 40; it++) {
      const N = 6 + rng.int(7), R = 1 + rng.int(4);
      const inst = randomInstance(rng, N, R, overlapping);
      const want = bruteForce(inst);
      const scope = Int32Array.from({ length: N }, (_, i) => i);
      const got = await relabel({
        yPred: inst.labels,
        yTrue: null,
        scope,
        regions: inst.regions,
        approx: false,
        budget: inst.budget,
        prTol: inst.prTol,
        workLimitSeconds: 30,
      });
      const ctx = `instance ${it}: N=${N} R=${R} budget=${inst.budget} pr=${inst.prTol}`;
      assert.equal(got.status.code, 0, ctx);
      close(got.objective!, want.value, 1e-9, ctx);
      // the flips applied realise the optimum (the objective is not just a number)
      close(totalStat(got.mitigatedPreds, inst.regions), want.value, 1e-9, ctx);
      if (want.value < totalStat(inst.labels, inst.regions) - 1e-9) improved++;
      assert.ok(got.nFlips <= (inst.budget <= 1 ? Math.floor(inst.budget * N + 1e-9) : inst.budget), ctx);
    }
    assert.ok(improved >= 15, `only ${improved} of 40 instances had anything to improve`);
  });
}

Deno.test("the fixed-newP objective is convex in the region's positives (second differences ≥ 0, by logarithms)", () => {
  // φ(x) = rawStat(x, n, P', N) for x over the feasible range, several shapes of region and rate
  for (const [n, N, Pp] of [[7, 20, 9], [50, 60, 31], [3, 1000, 400], [400, 1000, 3], [100, 201, 100]]) {
    const lo = Math.max(0, Pp - (N - n)), hi = Math.min(n, Pp);
    for (let x = lo + 1; x < hi; x++) {
      const second = rawStat(x + 1, n, Pp, N) - 2 * rawStat(x, n, Pp, N) + rawStat(x - 1, n, Pp, N);
      assert.ok(second >= -1e-12, `n=${n} N=${N} P'=${Pp} x=${x}: ${second}`);
    }
  }
});

Deno.test("a region's Lagrangian bound is the minimum over each x alone, wherever its search starts", () => {
  const t = xlogxTable(400);
  fc.assert(
    fc.property(
      fc.record({
        n: fc.integer({ min: 1, max: 120 }),
        N: fc.integer({ min: 130, max: 400 }),
        p: fc.nat(),
        width: fc.integer({ min: 0, max: 60 }),
        lo: fc.nat(),
        lambda: fc.double({ min: -3, max: 3, noNaN: true }),
        mu: fc.double({ min: 0, max: 3, noNaN: true }),
        hint: fc.integer({ min: -10, max: 140 }),
      }),
      ({ n, N, width, lambda, mu, hint, ...r }) => {
        const p = r.p % (n + 1), lo = r.lo % (N - width), hi = lo + width;
        const xl = Math.max(0, p - 40), xh = Math.min(n, p + 40);
        let min = Infinity; // each x on its own: no search at all
        for (let x = xl; x <= xh; x++) min = Math.min(min, regionBound(t, n, N, p, x, x, lo, hi, lambda, mu));
        const got = regionBound(t, n, N, p, xl, xh, lo, hi, lambda, mu, hint);
        return got === min || Math.abs(got - min) <= 1e-9 * Math.max(1, Math.abs(min));
      },
    ),
    { numRuns: 2000, seed: 7 },
  );
});

Deno.test("exact (disjoint) at its work limit: status 1, the best found, and a proven bound below it", async () => {
  const { labels, regions } = disjointInstance(200_000, 1000, 0.35, 0.05);
  const scope = Int32Array.from(labels, (_, i) => i);
  const r = await relabel({
    yPred: labels,
    yTrue: null,
    scope,
    regions,
    approx: false,
    budget: 0.02, // a binding budget: many newP to rule out
    prTol: 0.1,
    workLimitSeconds: 0.05,
  });
  assert.equal(r.status.code, 1);
  assert.match(r.status.detail, /work limit of 0.05 s/);
  assert.ok(r.objective! > r.bound!);
  assert.ok(r.nFlips > 0 && r.nFlips <= 4000);
  close(totalStat(r.mitigatedPreds, regions), r.objective!, 1e-6 * r.objective!);
});

Deno.test("exact (overlapping) from a seed (the rounded approx solution, or a poor one) still equals brute force", async () => {
  const rng = new Rng(11);
  for (let it = 0; it < 12; it++) {
    const inst = randomInstance(rng, 13, 4, true);
    const pr = buildProblem(inst.labels, inst.regions, inst);
    const want = bruteForce(inst);
    const approx = await solveApprox(pr, 10);
    const poor = Int32Array.from(pr.unitCount, (c) => rng.int(c + 1)); // often over budget: ignored then
    for (const start of [unitFlipCounts(pr, approx.unitDelta!), poor]) {
      const got = solveExactOverlapping(pr, 30, start);
      assert.equal(got.status.code, 0);
      close(got.objective!, want.value, 1e-9, `instance ${it}`);
    }
  }
});

Deno.test("warm-started fixed-newP solves equal solves from scratch (every D, from every other D's solution)", () => {
  const rng = new Rng(5);
  for (let it = 0; it < 30; it++) {
    const inst = randomInstance(rng, 8 + rng.int(30), 1 + rng.int(6), false);
    const pr = buildProblem(inst.labels, inst.regions, inst);
    const G = groupsOf(pr, xlogxTable(pr.N));
    const scratch = new Map<number, FixedSolution>();
    for (let D = pr.dMin; D <= pr.dMax; D++) {
      const s = solveFixedD(G, D);
      if (s) scratch.set(D, s);
    }
    for (const from of scratch.values()) {
      for (const [D, want] of scratch) {
        close(solveFixedDWarm(G, D, from)!.value, want.value, 1e-12, `${it} ${from.D}→${D}`);
      }
    }
  }
  // and at scale, with the budget binding: a walk over neighbouring D as the branch and bound makes
  const { labels, regions } = disjointInstance(200_000, 1000, 0.35, 0.1);
  const pr = buildProblem(labels, regions, { budget: 0.02, prTol: 0.1 });
  const G = groupsOf(pr, xlogxTable(pr.N));
  let from = solveFixedD(G, 0)!;
  for (const D of [3, 10, -7, 250, 251, -1200, 40]) {
    const warm = solveFixedDWarm(G, D, from)!, want = solveFixedD(G, D)!;
    close(warm.value, want.value, 1e-9 * want.value, `D = ${D}`);
    from = warm;
  }
});
