import assert from "node:assert/strict";
import { xlogxTable } from "../../../../core/spatial/statistic.ts";
import { type ExchangeIndex, exchangeIndex } from "../../../../core/spatial/mitigate/exact_exchange_index.ts";
import { type FlipState, flipState } from "../../../../core/spatial/mitigate/exact_flip_state.ts";
import {
  capsKept,
  exactObjective,
  positivesAfter,
} from "../../../../core/spatial/mitigate/exact_objective.ts";
import {
  pairMoves,
  pairQueue,
  queueAll,
  queueChanged,
} from "../../../../core/spatial/mitigate/exact_pair_moves.ts";
import { plan, realise } from "../../../../core/spatial/mitigate/exact_realise.ts";
import { buildProblem, type MitigationProblem } from "../../../../core/spatial/mitigate/problem.ts";
import { unitNeighbours } from "../../../../core/spatial/mitigate/unit_neighbours.ts";
import { Rng } from "../../../../core/random.ts";
import { regionsOf } from "./fixtures.ts";
import { ll, roundedScanStart, statAfter, unitOf } from "./exact_reference.ts";

Deno.test("pair moves by hand: one flip between cells mends a class of two equal regions at once", () => {
  // N = 8: 0, 1 in A and A' (the same members: one class), labels 0; 2..5 in none, labels 1; 6, 7 in none,
  // labels 0. P = 4 = P', the rate 1/2. A and A' each hold 0 of their best 1: two terms ll(0, 2) + ll(4, 6) -
  // ll(4, 8) = 4 ln(2/3) + 2 ln(1/3) + 8 ln 2. One of 0, 1 flipping up and one of 2..5 down puts both at 1: 0.
  const labels = Uint8Array.of(0, 0, 1, 1, 1, 1, 0, 0);
  const members = [[0, 1], [0, 1]];
  const pr = buildProblem(labels, regionsOf(members), { budget: 1, prTol: 0 }), t = xlogxTable(pr.N);
  const near = Array.from({ length: pr.unitSign.length }, () => new Int32Array(0));
  near[unitOf(pr, 0)] = Int32Array.of(unitOf(pr, 2));
  const ix = exchangeIndex(pr, near), q = pairQueue(ix);
  assert.equal(ix.pairA.length, 1);
  const s = flipState(pr, t, new Int32Array(pr.unitSign.length));
  const one = 4 * Math.log(2 / 3) + 2 * Math.log(1 / 3) + 8 * Math.log(2);
  assert.ok(Math.abs(ll(0, 2) + ll(4, 6) - ll(4, 8) - one) < 1e-12);
  assert.ok(Math.abs(s.at[1] - 2 * one) < 1e-9, `${s.at[1]}`);
  queueAll(q);
  assert.equal(pairMoves(pr, t, s, ix, q, Infinity), 1);
  assert.deepEqual([s.x[0], s.x[1], s.D, s.used], [1, 1, 0, 2]);
  assert.ok(Math.abs(s.at[1]) < 1e-9, `${s.at[1]}`);
  assert.ok(statAfter(pr, labels, members, s.k).value < 1e-9);
  // nothing is left to look at, and looking again finds nothing
  assert.equal(q.size, 0);
  queueAll(q);
  assert.equal(pairMoves(pr, t, s, ix, q, Infinity), 0);
});

/** Pair p's value at sign σ, region by region from the units' own region lists (not the index's classes). */
function valueByRegions(
  pr: MitigationProblem,
  t: Float64Array,
  s: FlipState,
  ix: ExchangeIndex,
  p: number,
  sigma: number,
): number {
  const x = s.x.slice(), rep = (c: number) => (ix.cellUp[c] >= 0 ? ix.cellUp[c] : ix.cellDown[c]);
  for (const [cell, d] of [[ix.pairA[p], sigma], [ix.pairB[p], -sigma]]) {
    const u = rep(cell);
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) x[pr.unitRegions[r]] += d;
  }
  return exactObjective(pr, t, x, pr.P + s.D) - exactObjective(pr, t, s.x, pr.P + s.D);
}

/** The pairs that gain and that the units, the budget and the caps would let be taken. */
function gainingPairs(pr: MitigationProblem, t: Float64Array, s: FlipState, ix: ExchangeIndex): number[] {
  const out: number[] = [];
  for (let p = 0; p < ix.pairA.length; p++) {
    for (const sigma of [1, -1]) {
      const gain = valueByRegions(pr, t, s, ix, p, sigma), m = { gain, pairs: [p], signs: [sigma] };
      if (!(gain < -1e-9) || !plan(pr, s, ix, m)) continue;
      // the caps too: on a copy
      const c = { ...s, k: s.k.slice(), x: s.x.slice(), capLeft: s.capLeft.slice() };
      if (realise(pr, c, ix, m)) out.push(p);
    }
  }
  return out;
}

Deno.test("pair moves on scan designs: the queue leaves no pair that gains, after a start and after a kick", () => {
  for (const [seed, maxFlips] of [[7, undefined], [8, 3]] as const) {
    const { labels, members, pr, t, D, start } = roundedScanStart(6_000, 300, seed, maxFlips);
    const s = flipState(pr, t, start);
    const ix = exchangeIndex(pr, unitNeighbours(pr, 24, 40)), q = pairQueue(ix), rng = new Rng(seed);
    const check = (what: string, before: number) => {
      const again = positivesAfter(pr, s.k);
      assert.deepEqual(Array.from(again.x), Array.from(s.x));
      assert.equal(again.D, D);
      assert.ok(again.used <= pr.C && capsKept(pr, s.k));
      assert.ok(s.k.every((v, u) => v >= 0 && v <= pr.unitCount[u]));
      const value = exactObjective(pr, t, s.x, pr.P + D);
      assert.ok(Math.abs(s.at[1] - value) < 1e-9 * Math.max(1, value), `${what}: ${s.at[1]} vs ${value}`);
      assert.ok(Math.abs(statAfter(pr, labels, members, s.k).value - value) < 1e-7);
      assert.ok(value < before, `${what}: ${value} after ${before}`);
      assert.deepEqual(gainingPairs(pr, t, s, ix), [], `${what}: a pair still gains`);
    };
    const rounded = s.at[1];
    queueAll(q);
    assert.ok(pairMoves(pr, t, s, ix, q, Infinity) > 0);
    check(`seed ${seed}, start`, rounded);
    // a kick: random pair moves, then only what they disturbed is queued
    const x0 = s.x.slice(), k0 = s.k.slice();
    for (let j = 0; j < 40; j++) {
      realise(pr, s, ix, { gain: 0, pairs: [rng.int(ix.pairA.length)], signs: [rng.next() < 0.5 ? 1 : -1] });
    }
    s.at[1] = exactObjective(pr, t, s.x, pr.P + D);
    const kicked = s.at[1];
    queueChanged(q, ix, s, x0, k0);
    assert.ok(q.size < ix.pairA.length, "a kick queues part of the pairs");
    assert.ok(pairMoves(pr, t, s, ix, q, Infinity) > 0);
    check(`seed ${seed}, kick`, kicked);
  }
});
