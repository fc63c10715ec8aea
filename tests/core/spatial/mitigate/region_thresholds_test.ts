/** δ → threshold and tie probability by the rules of docs/spatial-fairness.md, each case computed by hand (t0 = 0.5). */
import assert from "node:assert/strict";
import { InvalidParamError } from "../../../../core/errors.ts";
import { Rng } from "../../../../core/random.ts";
import {
  decide,
  predictWithThresholds,
  regionThreshold,
} from "../../../../core/spatial/mitigate/region_thresholds.ts";
import { close } from "./fixtures.ts";

const t0 = 0.5;
const check = (delta: number, probs: number[], threshold: number, tie: number, msg: string) => {
  const r = regionThreshold(delta, probs, t0, 3);
  assert.equal(r.idx, 3);
  close(r.threshold, threshold, 1e-15, `${msg} threshold`);
  close(r.eq_to_thresh_flip_prob, tie, 1e-15, `${msg} tie`);
};

Deno.test("δ = 0 keeps t0 and no tie probability", () => check(0, [0.2, 0.7], 0.5, -1, "zero"));

Deno.test("|δ| < 1: the threshold moves from t0 towards the midpoint with s[0] by |f|, or a tie at t0", () => {
  // candidates ≤ t0, descending: 0.45 0.3 0.1; m = 0.475; 0.5 + 0.4·(0.475 - 0.5) = 0.49
  check(0.4, [0.1, 0.3, 0.45, 0.7, 0.9], 0.49, -1, "up");
  // candidates > t0, ascending: 0.6 0.8; m = 0.55; 0.5 + 0.5·0.05 = 0.525
  check(-0.5, [0.8, 0.6, 0.2], 0.525, -1, "down");
  // s[0] = t0, two candidates at t0: tie probability 0.6 / 2
  check(0.6, [0.5, 0.5, 0.2, 0.8], 0.5, 0.3, "tie at t0");
});

Deno.test("fractional and whole δ beyond 1: midpoint rules, moving down for δ > 0 and up for δ < 0", () => {
  // desc 0.45 0.3 0.2 0.1; δ = 2.25: k = 1, f = 0.25, s[1] = 0.3, next 0.2, m = 0.25 → 0.3 - 0.25·0.05
  check(2.25, [0.1, 0.2, 0.3, 0.45, 0.6], 0.2875, -1, "2.25");
  check(2, [0.1, 0.2, 0.3, 0.45, 0.6], 0.25, -1, "2 → midpoint");
  check(1.9999999999, [0.1, 0.2, 0.3, 0.45, 0.6], 0.25, -1, "noise snaps to 2");
  // asc 0.55 0.7 0.9; δ = -1.5: k = 0, f = 0.5, next 0.7, m = 0.625 → 0.55 + 0.5·0.075
  check(-1.5, [0.55, 0.7, 0.9, 0.3], 0.5875, -1, "-1.5");
});

Deno.test("tie at the cut: threshold s[k], tie probability (inc + |f|)/(inc + ext), or one minus it for δ < 0", () => {
  // desc 0.4 0.4 0.4 0.2; δ = 1.5: k = 0, inc = 1, ext = 2 → (1 + 0.5)/3
  check(1.5, [0.4, 0.4, 0.4, 0.2, 0.6], 0.4, 0.5, "up");
  // asc 0.7 0.7 0.7 0.9; δ = -2.25: k = 1, inc = 2, ext = 1 → 1 - 2.25/3
  check(-2.25, [0.7, 0.7, 0.7, 0.9], 0.7, 0.25, "down");
  // whole δ: (inc + 0)/(inc + ext) = 2/3
  check(2, [0.4, 0.4, 0.4, 0.2], 0.4, 2 / 3, "whole");
});

Deno.test("past the last candidate: next is 0 (δ > 0) or 1 (δ < 0); beyond the candidates: a 422", () => {
  check(3, [0.1, 0.2, 0.3, 0.8], 0.05, -1, "3 of 3"); // m = (0.1 + 0)/2
  check(-1, [0.8, 0.3], 0.9, -1, "-1 of 1"); // m = (0.8 + 1)/2
  assert.throws(() => regionThreshold(4, [0.1, 0.2, 0.3, 0.8], t0), (e: Error) => {
    assert.ok(e instanceof InvalidParamError);
    assert.match(e.message, /δ = 4 asks for more flips than the 3 of its training members/);
    return true;
  });
  assert.throws(() => regionThreshold(3.5, [0.1, 0.2, 0.3, 0.8], t0), InvalidParamError); // 3.5 > 3
  assert.throws(() => regionThreshold(0.5, [0.7, 0.9], t0), InvalidParamError); // no candidate ≤ t0
  assert.throws(() => regionThreshold(-1.2, [0.1, 0.9], t0), InvalidParamError); // needs 2 above t0, has 1
});

Deno.test("prediction: prob > threshold; ties drawn with the seed; overlapping regions vote by weight", () => {
  const rng = new Rng(1);
  assert.equal(decide(0.6, { idx: 0, threshold: 0.5, eq_to_thresh_flip_prob: -1 }, rng), 1);
  assert.equal(decide(0.5, { idx: 0, threshold: 0.5, eq_to_thresh_flip_prob: -1 }, rng), 0);
  // 20,000 individuals at a threshold with tie probability 0.3: share within 4 standard deviations
  const n = 20_000,
    prob = new Float64Array(n).fill(0.4),
    positions = Int32Array.from({ length: n }, (_, i) => i);
  const oneRegion = { start: Int32Array.from({ length: n + 1 }, (_, i) => i), regs: new Int32Array(n) };
  const th = [{ idx: 0, threshold: 0.4, eq_to_thresh_flip_prob: 0.3 }];
  const a = predictWithThresholds(prob, positions, oneRegion, th, new Float64Array([1]), t0, new Rng(9));
  const share = a.reduce((s, v) => s + v, 0) / n;
  assert.ok(Math.abs(share - 0.3) < 4 * Math.sqrt(0.21 / n), `share ${share}`);
  assert.deepEqual(
    predictWithThresholds(prob, positions, oneRegion, th, new Float64Array([1]), t0, new Rng(9)),
    a,
  );
  // individual 0 in regions 0 (says 1, weight 1/2) and 1 (says 0, weight 1/4) → 1;
  // individual 1 in regions 0 (1, 1/2), 1 (0, 1/4), 2 (0, 1/3) → 0.5 < 0.583 → 0; individual 2 in none → prob > t0
  const regs = { start: Int32Array.from([0, 2, 5, 5]), regs: Int32Array.from([0, 1, 0, 1, 2]) };
  const thr = [0.3, 0.9, 0.9].map((threshold, idx) => ({ idx, threshold, eq_to_thresh_flip_prob: -1 }));
  const w = Float64Array.from([1 / 2, 1 / 4, 1 / 3]);
  const out = predictWithThresholds(
    Float64Array.from([0.6, 0.6, 0.55]),
    Int32Array.from([0, 1, 2]),
    regs,
    thr,
    w,
    t0,
    rng,
  );
  assert.deepEqual([...out], [1, 0, 1]);
});
