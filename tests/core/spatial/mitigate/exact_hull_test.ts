import assert from "node:assert/strict";
import fc from "fast-check";
import { xlogxTable } from "../../../../core/spatial/statistic.ts";
import { approxRows } from "../../../../core/spatial/mitigate/approx_bound.ts";
import { chainsOf } from "../../../../core/spatial/mitigate/approx_chains.ts";
import { dualValues, raiseAround } from "../../../../core/spatial/mitigate/exact_dual_bound.ts";
import { ALL_PIECES, hullAtD, hullWindow } from "../../../../core/spatial/mitigate/exact_hull.ts";
import { rateBound } from "../../../../core/spatial/mitigate/exact_rate_bound.ts";
import { eachFlipVector, setUp, statAfter, tiny } from "./exact_reference.ts";
import { larLikeProblem } from "../../../../bench/lar_like_problem.ts";

/** The brute-force optimum at each D of the window (index D - dMin; Infinity where no flips reach D). */
function optimumPerD(c: Parameters<typeof setUp>[0]) {
  const { pr, labels, members, opt } = setUp(c);
  const best = new Float64Array(pr.dMax - pr.dMin + 1).fill(Infinity);
  eachFlipVector(pr, (k) => {
    if (k.reduce((a, b) => a + b, 0) > pr.C) return;
    const { value, newP } = statAfter(pr, labels, members, k), j = newP - pr.P - pr.dMin;
    if (j >= 0 && j < best.length) best[j] = Math.min(best[j], value);
  });
  return { pr, opt, best };
}

Deno.test("hullAtD: between B(P') and the brute-force optimum at its D", () => {
  let solved = 0;
  fc.assert(
    fc.property(tiny, (c) => {
      const { pr, best } = optimumPerD(c), t = xlogxTable(pr.N);
      const rows = approxRows(pr), chains = chainsOf(rows);
      for (let D = pr.dMin; D <= pr.dMax; D++) {
        const opt = best[D - pr.dMin];
        if (!Number.isFinite(opt) || rows.kappa.length === 0) continue;
        const h = hullAtD(pr, t, rows, chains, D, Infinity);
        if (!h) continue;
        solved++;
        const b = rateBound({ ...pr, dMin: D, dMax: D }, t).bound, tol = 2e-3 * Math.max(1, opt);
        // a relaxation of the integers' problem at D (stopped at a relative gap of 1e-3), at least B(P')
        assert.ok(
          h.value >= b - tol && h.value <= opt + tol,
          `D ${D}: hull ${h.value}, B ${b}, optimum ${opt}`,
        );
        // every doubling piece: at or above the three pieces' hull everywhere, so of no lower value, and still
        // at or below φ on the integers, so a relaxation too
        const all = hullAtD(pr, t, rows, chains, D, Infinity, ALL_PIECES)!;
        assert.ok(
          all.value >= h.value - tol && all.value <= opt + tol,
          `D ${D}: all pieces ${all.value}, three ${h.value}, optimum ${opt}`,
        );
      }
    }),
    { numRuns: 300, seed: 41 },
  );
  assert.ok(solved >= 300, `the interior point answered ${solved} times`);
});

Deno.test("raiseAround: only raises, to g(D) of the same multipliers", () => {
  fc.assert(
    fc.property(
      tiny,
      fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 4, maxLength: 4 }),
      (c, ys) => {
        const { pr } = setUp(c), t = xlogxTable(pr.N), W = pr.dMax - pr.dMin + 1;
        const y = Float64Array.from({ length: pr.n.length }, (_, i) => ys[i % ys.length]);
        const g = new Float64Array(W), env = rateBound(pr, t).perD(), before = env.slice();
        dualValues(pr, t, y, g);
        raiseAround(pr, t, y, pr.dMin + (W >> 1), env);
        for (let j = 0; j < W; j++) {
          assert.ok(env[j] >= before[j], `D ${pr.dMin + j} fell`);
          if (env[j] > before[j]) assert.equal(env[j], g[j]);
        }
      },
    ),
    { numRuns: 500, seed: 42 },
  );
});

Deno.test("hullWindow: its bound lies between min B(P') and the brute-force optimum", () => {
  fc.assert(
    fc.property(tiny, fc.nat(), (c, f) => {
      const { pr, opt } = optimumPerD(c), t = xlogxTable(pr.N);
      if (!Number.isFinite(opt)) return;
      const rate = rateBound(pr, t), towards = pr.dMin + (f % (pr.dMax - pr.dMin + 1));
      const rows = approxRows(pr), rc = { rows, chains: chainsOf(rows) };
      const { bound } = hullWindow(pr, t, rc, rate.perD(), { towards, deadline: Infinity });
      assert.ok(bound >= rate.bound - 1e-12, `bound ${bound} below B ${rate.bound}`);
      assert.ok(bound <= opt + 1e-9 * Math.max(1, opt), `bound ${bound}, optimum ${opt}`);
    }),
    { numRuns: 300, seed: 43 },
  );
});

/** A LAR-like edge case of 30,000 (budget 0.05) with what hullWindow takes: B(P'), the rows and chains. */
function larLikeEdge(equalOpp: boolean) {
  const pr = larLikeProblem({ n: 30_000, regions: 900, budget: 0.05, equalOpp, seed: 3 });
  const t = xlogxTable(pr.N), rate = rateBound(pr, t), rows = approxRows(pr);
  return { pr, t, rate, rc: { rows, chains: chainsOf(rows) } };
}

Deno.test("hullWindow on a LAR-like edge case: a second point at another D, of no lower value", () => {
  // B(P') is least at the window's edge (D = -1,467); the first solve is shifted towards D = 0 (to -733),
  // the next at the lowest D again: two points over 100 apart, the best the one of lower value
  const { pr, t, rate, rc } = larLikeEdge(false);
  const w = hullWindow(pr, t, rc, rate.perD(), { towards: 0, deadline: performance.now() + 20_000 });
  assert.ok(w.best && w.other, "two hull points");
  assert.ok(Math.abs(w.other.D - w.best.D) >= 100, `${w.other.D} and ${w.best.D}`);
  assert.ok(w.other.value >= w.best.value, `${w.other.value} below ${w.best.value}`);
  assert.ok(
    w.bound <= w.best.value * (1 + 1e-3),
    `bound ${w.bound} above the best hull value ${w.best.value}`,
  );
});

/** hullWindow on larLikeEdge(equalOpp) for 15 s from towards 0, and the D of each point `settled` was told of. */
function windowTold(equalOpp: boolean) {
  const { pr, t, rate, rc } = larLikeEdge(equalOpp), told: number[] = [];
  const w = hullWindow(pr, t, rc, rate.perD(), {
    towards: 0,
    deadline: performance.now() + 15_000,
    settled: (h) => told.push(h.D),
  });
  return { w, told };
}

Deno.test("hullWindow where the first shifted hull lifts nothing: shifts end, and its point is told once as the other", () => {
  // LAR-like EO, 30,000: the first hull, shifted from the lowest D towards 0, leaves the lowest bound where it
  // was; every later hull is then solved at the lowest D, so that shifted point stays the window's other
  const { w, told } = windowTold(true);
  assert.equal(told.length, 1, `told ${told}`);
  assert.ok(w.best && w.other, "two hull points");
  assert.equal(w.other.D, told[0]);
  assert.ok(w.other.value >= w.best.value && w.bound <= w.best.value * (1 + 1e-3));
});

Deno.test("hullWindow where a later shifted hull lifts nothing: shifts end there, told once", () => {
  // LAR-like SP, 30,000: the first shifted hull, from the edge (B(P') least at -1,467) to -733, lifts it; a
  // later one lifts nothing, and that point is told, once, over 100 from the best
  const { w, told } = windowTold(false);
  assert.equal(told.length, 1, `told ${told}`);
  assert.ok(
    w.best && told[0] !== -733 && Math.abs(told[0] - w.best.D) >= 100,
    `told ${told}, best ${w.best?.D}`,
  );
  assert.ok(w.bound <= w.best.value * (1 + 1e-3));
});
