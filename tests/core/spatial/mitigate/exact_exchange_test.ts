import assert from "node:assert/strict";
import { xlogxTable } from "../../../../core/spatial/statistic.ts";
import { exchanges } from "../../../../core/spatial/mitigate/exact_exchange.ts";
import { exchangeIndex } from "../../../../core/spatial/mitigate/exact_exchange_index.ts";
import { flipState } from "../../../../core/spatial/mitigate/exact_flip_state.ts";
import {
  capsKept,
  exactObjective,
  positivesAfter,
} from "../../../../core/spatial/mitigate/exact_objective.ts";
import { buildProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { unitNeighbours } from "../../../../core/spatial/mitigate/unit_neighbours.ts";
import { regionsOf } from "./fixtures.ts";
import { ll, roundedScanStart, statAfter, unitOf } from "./exact_reference.ts";

Deno.test("exchanges by hand: two pairs through a third cell mend region A alone", () => {
  // N = 8: individuals 0, 1 in A and X (labels 0), 2, 3 in X (labels 1), 4, 5 in none (labels 1), 6, 7 in
  // none (labels 0). P = 4, no flips: P' = 4, the rate 1/2. X (n = 4) holds 2 positives, its best; A (n = 2)
  // holds 0 of its best 1, the term ll(0, 2) + ll(4, 6) - ll(4, 8) = 4 ln(2/3) + 2 ln(1/3) + 8 ln 2.
  const labels = Uint8Array.of(0, 0, 1, 1, 1, 1, 0, 0);
  const pr = buildProblem(labels, regionsOf([[0, 1], [0, 1, 2, 3]]), { budget: 1, prTol: 0 });
  const members: number[][] = [[0, 1], [0, 1, 2, 3]], t = xlogxTable(pr.N);
  const ax = unitOf(pr, 0), x1 = unitOf(pr, 2), none1 = unitOf(pr, 4), none0 = unitOf(pr, 6);
  // only the pairs {A, X} - {} and {X} - {} are neighbours: no pair alone changes A without X
  const near = Array.from({ length: pr.unitSign.length }, () => new Int32Array(0));
  (near[ax] = Int32Array.of(none0), near[x1] = Int32Array.of(none1));
  const s = flipState(pr, t, new Int32Array(pr.unitSign.length));
  const before = 4 * Math.log(2 / 3) + 2 * Math.log(1 / 3) + 8 * Math.log(2);
  assert.ok(Math.abs(s.at[1] - before) < 1e-9, `${s.at[1]}`);
  assert.ok(Math.abs(ll(0, 2) + ll(4, 6) - ll(4, 8) - before) < 1e-12);
  const ix = exchangeIndex(pr, near);
  // `since` at the positives now: no class moved since, so none is tried; A's moved (here: x[0] then -1): A is
  assert.equal(exchanges(pr, t, s, ix, Infinity, s.x.slice()), 0);
  assert.deepEqual(Array.from(s.k), new Array(pr.unitSign.length).fill(0));
  const moves = exchanges(pr, t, s, ix, Infinity, Int32Array.of(-1, s.x[1]));
  // one of 0, 1 flips up (A +1, X +1) and one of 2, 3 flips down (X -1): A at 1, X at 2, P' stays 4
  assert.equal(moves, 1);
  assert.deepEqual([s.x[0], s.x[1], s.D, s.used], [1, 2, 0, 2]);
  assert.equal(s.k[ax] + s.k[x1], 2);
  // every region at the rate: the objective is 0, recomputed from the labels too
  assert.ok(Math.abs(s.at[1]) < 1e-9, `${s.at[1]}`);
  assert.ok(statAfter(pr, labels, members, s.k).value < 1e-9);
});

Deno.test("exchanges by hand: three pairs where no two do", () => {
  // N = 21: 0, 1 in A and X (labels 0); 2, 3 in X and Y (1); 4, 5 in Y (0); 6..14 in A (0, 1, 0, ...);
  // 15..20 in none (0, 1, ...). P = 9 = P'; A (n = 11) holds 4, its best is 5 (11·9/21 = 4.7); X and Y (n = 4)
  // hold 2, their best. The only neighbours: {A, X}, {X, Y} and {Y} each with the cell in no region.
  const labels = Uint8Array.of(0, 0, 1, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1);
  const A = [0, 1, 6, 7, 8, 9, 10, 11, 12, 13, 14], X = [0, 1, 2, 3], Y = [2, 3, 4, 5];
  const pr = buildProblem(labels, regionsOf([A, X, Y]), { budget: 1, prTol: 0 }), t = xlogxTable(pr.N);
  const near = Array.from({ length: pr.unitSign.length }, () => new Int32Array(0));
  near[unitOf(pr, 0)] = near[unitOf(pr, 4)] = Int32Array.of(unitOf(pr, 15));
  near[unitOf(pr, 2)] = Int32Array.of(unitOf(pr, 16));
  const s = flipState(pr, t, new Int32Array(pr.unitSign.length));
  // A +1 with X: 0.0319 - 0.1993 + 1.0545 - 0.0511 > 0, so no pair with one other class either; three pairs:
  // {A, X} - {} forward, {X, Y} - {} back, {Y} - {} forward: A +1 alone, D 0
  const term = (x: number, n: number) => ll(x, n) + ll(9 - x, 21 - n) - ll(9, 21);
  assert.ok(Math.abs(s.at[1] - (term(4, 11) + 2 * term(2, 4))) < 1e-9, `${s.at[1]}`);
  assert.equal(exchanges(pr, t, s, exchangeIndex(pr, near), Infinity), 1);
  assert.deepEqual([s.x[0], s.x[1], s.x[2], s.D], [5, 2, 2, 0]);
  const after = term(5, 11) + 2 * term(2, 4);
  assert.ok(Math.abs(s.at[1] - after) < 1e-9, `${s.at[1]} vs ${after}`);
  assert.ok(Math.abs(statAfter(pr, labels, [A, X, Y], s.k).value - after) < 1e-9);
});

Deno.test("exchanges on scan designs: each round lowers the objective it reports, and keeps D, budget and caps", () => {
  for (const [seed, maxFlips] of [[7, undefined], [8, 3]] as const) {
    const { labels, members, pr, t, D, start } = roundedScanStart(6_000, 300, seed, maxFlips);
    const s = flipState(pr, t, start);
    const ix = exchangeIndex(pr, unitNeighbours(pr, 24, 40));
    let total = 0, last = s.at[1];
    for (let round = 0; round < 5; round++) {
      const moves = exchanges(pr, t, s, ix, Infinity);
      total += moves;
      const again = positivesAfter(pr, s.k);
      assert.deepEqual(Array.from(again.x), Array.from(s.x));
      assert.equal(again.D, D);
      assert.ok(
        again.used <= pr.C && capsKept(pr, s.k) && s.k.every((v, u) => v >= 0 && v <= pr.unitCount[u]),
      );
      // the value it keeps is the objective recomputed, here and from the labels
      const value = exactObjective(pr, t, s.x, pr.P + D);
      assert.ok(Math.abs(s.at[1] - value) < 1e-9 * Math.max(1, value), `${s.at[1]} vs ${value}`);
      assert.ok(Math.abs(statAfter(pr, labels, members, s.k).value - value) < 1e-7);
      assert.ok(value <= last + 1e-12 && (moves === 0 || value < last), `${value} after ${last}`);
      last = value;
      if (!moves) break;
    }
    assert.ok(total > 0, `seed ${seed}: no exchange found`);
  }
});
