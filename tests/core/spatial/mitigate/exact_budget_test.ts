import assert from "node:assert/strict";
import fc from "fast-check";
import { xlogxTable } from "../../../../core/spatial/statistic.ts";
import { budgetStart } from "../../../../core/spatial/mitigate/exact_budget.ts";
import { dualValues } from "../../../../core/spatial/mitigate/exact_dual_bound.ts";
import { positivesAfter } from "../../../../core/spatial/mitigate/exact_objective.ts";
import { rateBound } from "../../../../core/spatial/mitigate/exact_rate_bound.ts";
import { directionsOf, projectFlips } from "../../../../core/spatial/mitigate/exact_relaxation.ts";
import { eachFlipVector, setUp, statAfter, tiny } from "./exact_reference.ts";
import { larLikeProblem } from "../../../../bench/lar_like_problem.ts";

/** min over the window of g under multipliers y (Infinity where no D is reachable). */
function windowMin(pr: ReturnType<typeof setUp>["pr"], y: Float64Array): number {
  const out = new Float64Array(pr.dMax - pr.dMin + 1);
  dualValues(pr, xlogxTable(pr.N), y, out);
  return Math.min(...out);
}

/** Weak duality on tiny instances: multipliers drawn from [-span, span] never bound above the optimum. */
function boundsOptimum(span: number, seed: number): void {
  fc.assert(
    fc.property(
      tiny,
      fc.array(fc.double({ min: -span, max: span, noNaN: true }), { minLength: 4, maxLength: 4 }),
      (c, ys) => {
        const { pr, opt } = setUp(c);
        if (!Number.isFinite(opt)) return;
        const y = Float64Array.from({ length: pr.n.length }, (_, i) => ys[i % ys.length]);
        const g = windowMin(pr, y);
        assert.ok(g <= opt + 1e-9 * Math.max(1, opt), `bound ${g}, optimum ${opt}`);
      },
    ),
    { numRuns: 1500, seed },
  );
}

Deno.test("dualValues: any multipliers bound the brute-force optimum (weak duality)", () =>
  boundsOptimum(3, 11));

Deno.test("dualValues: multipliers far from 0 still bound the brute-force optimum", () => {
  // y ≈ -690 (a relaxation's gradient at a region's edge) once made the root of φ'(z) = y cancel to
  // Infinity, and the region's minimum was taken at its highest count: a "bound" of 692.5 over an optimum
  // of 0 at D = -1 of this instance
  const c = {
    labels: [true, true, true, false, true, true, false, false],
    inRegion: [[false, false], [true, true], [false, true], [true, true], [false, false], [true, true], [
      true,
      false,
    ], [true, true]],
    budget: 0.2,
    prTol: 0.3,
    seed: null,
    nodeLimit: 0,
  };
  const { pr } = setUp(c);
  const out = new Float64Array(pr.dMax - pr.dMin + 1);
  dualValues(pr, xlogxTable(pr.N), Float64Array.of(-690.7755278982137, 0), out);
  assert.ok(out[0] <= 0, `g(-1) = ${out[0]}`);
  boundsOptimum(800, 17);
});

Deno.test("dualValues with no multipliers is B(P') at every D some flips reach, Infinity elsewhere", () => {
  fc.assert(
    fc.property(tiny, (c) => {
      const { pr } = setUp(c);
      const t = xlogxTable(pr.N), out = new Float64Array(pr.dMax - pr.dMin + 1);
      dualValues(pr, t, new Float64Array(pr.n.length), out);
      // which D whole flips within the budget reach, by enumeration
      const reach = new Set<number>();
      eachFlipVector(pr, (k) => {
        const { D, used } = positivesAfter(pr, k);
        if (used <= pr.C) reach.add(D);
      });
      for (let D = pr.dMin; D <= pr.dMax; D++) {
        const g = out[D - pr.dMin], b = rateBound({ ...pr, dMin: D, dMax: D }, t).bound;
        if (!reach.has(D)) assert.equal(g, Infinity, `D ${D}`);
        else assert.ok(Math.abs(Math.max(0, g) - b) <= 1e-9 * Math.max(1, b), `D ${D}: ${g} vs ${b}`);
      }
    }),
    { numRuns: 500, seed: 12 },
  );
});

Deno.test("projectFlips: within the box, the budget and D, and no farther than any feasible flips", () => {
  fc.assert(
    fc.property(
      tiny,
      fc.array(fc.double({ min: -4, max: 6, noNaN: true }), { minLength: 18, maxLength: 18 }),
      (c, vs) => {
        const { pr } = setUp(c);
        const U = pr.unitSign.length, v = Float64Array.from({ length: U }, (_, u) => vs[u % vs.length]);
        const D = Math.max(pr.dMin, Math.min(pr.dMax, 0)), out = new Float64Array(U);
        projectFlips(pr, directionsOf(pr), v, D, out);
        let used = 0, net = 0;
        for (let u = 0; u < U; u++) {
          assert.ok(out[u] >= -1e-9 && out[u] <= pr.unitCount[u] + 1e-9);
          (used += out[u], net += pr.unitSign[u] * out[u]);
        }
        assert.ok(
          used <= pr.C + 1e-6 && Math.abs(net - D) <= 1e-6,
          `used ${used} of ${pr.C}, net ${net} for ${D}`,
        );
        // every integer point of the set is at least as far from v
        const dist = (k: ArrayLike<number>) => Array.from(v).reduce((s, x, u) => s + (x - k[u]) ** 2, 0);
        const mine = dist(out);
        eachFlipVector(pr, (k) => {
          const { D: d, used: n } = positivesAfter(pr, k);
          if (d === D && n <= pr.C) assert.ok(mine <= dist(k) + 1e-6, `${mine} > ${dist(k)}`);
        });
      },
    ),
    { numRuns: 400, seed: 13 },
  );
});

Deno.test("budgetStart: its bound never passes the brute-force optimum, its flips fit", () => {
  fc.assert(
    fc.property(tiny, (c) => {
      const { pr, labels, members, opt } = setUp(c);
      if (!Number.isFinite(opt)) return;
      const b = budgetStart(pr, xlogxTable(pr.N), performance.now() + 200);
      assert.ok(b.bound <= opt + 1e-9 * Math.max(1, opt), `bound ${b.bound}, optimum ${opt}`);
      if (b.start) {
        const { D, used } = positivesAfter(pr, b.start);
        assert.ok(used <= pr.C && D >= pr.dMin && D <= pr.dMax);
        assert.ok(statAfter(pr, labels, members, b.start).value >= opt - 1e-9);
      }
    }),
    { numRuns: 300, seed: 15 },
  );
});

Deno.test("budgetStart from a given bound per D: raises it in place, its bound is its least", () => {
  fc.assert(
    fc.property(tiny, (c) => {
      const { pr, opt } = setUp(c);
      if (!Number.isFinite(opt)) return;
      const t = xlogxTable(pr.N), env = rateBound(pr, t).perD(), before = env.slice();
      const b = budgetStart(pr, t, performance.now() + 200, Infinity, env);
      env.forEach((v, j) => assert.ok(v >= before[j], `D ${pr.dMin + j} fell`));
      assert.ok(Math.abs(b.bound - Math.max(0, Math.min(...env))) <= 1e-12);
      assert.ok(b.bound <= opt + 1e-9 * Math.max(1, opt), `bound ${b.bound}, optimum ${opt}`);
      assert.equal(typeof b.stalled, "boolean");
    }),
    { numRuns: 300, seed: 16 },
  );
});

Deno.test("budgetStart: stalled at once where the first relaxation lifts not even its own D", () => {
  // LAR-like EO, 30,000, at the window's middle D: with 300 flips the first relaxation's multipliers bound
  // below B(P') there (its steps far from converged), so the hull relaxations get the time; with 150 they
  // lift it, and the smooth relaxations go on
  for (const [budget, stalls] of [[300, true], [150, false]] as const) {
    const pr = larLikeProblem({ n: 30_000, regions: 900, budget, equalOpp: true, seed: 3 });
    // the first relaxation's D, as budgetStart seeds it: the window's middle (index D - dMin)
    const j = Math.round((pr.dMax - pr.dMin) / 2);
    const t = xlogxTable(pr.N), env = rateBound(pr, t).perD(), before = env.slice();
    const r = budgetStart(pr, t, performance.now() + 20_000, Infinity, env);
    assert.equal(r.stalled, stalls, `budget ${budget}`);
    assert.ok(stalls ? env[j] === before[j] : env[j] > before[j], `${env[j]} from ${before[j]}`);
  }
});
