import assert from "node:assert/strict";
import { Rng } from "../../../../core/random.ts";
import {
  thresholdFit,
  type ThresholdInput,
  thresholdMitigation,
  thresholdSplit,
} from "../../../../core/spatial/mitigate/threshold_mitigation.ts";
import { regionsOf } from "./fixtures.ts";

/** 4,000 individuals in 4 regions (i mod 4); scores shifted up in region 0 and down in region 3. */
function biased(seed: number): ThresholdInput {
  const rng = new Rng(seed), n = 4000, shift = [0.15, 0.05, -0.05, -0.15];
  const prob = Float64Array.from(
    { length: n },
    (_, i) => Math.min(1, Math.max(0, rng.next() * 0.8 + 0.1 + shift[i % 4])),
  );
  const yPred = Uint8Array.from(prob, (p) => (p > 0.5 ? 1 : 0));
  const yTrue = Uint8Array.from(prob, () => (rng.next() < 0.5 ? 1 : 0));
  const members = [0, 1, 2, 3].map((r) => Array.from({ length: n / 4 }, (_, k) => 4 * k + r));
  return {
    yPred,
    yTrue,
    prob,
    regions: regionsOf(members),
    equalOpp: false,
    approx: true,
    budget: 0.2,
    prTol: 0.1,
    workLimitSeconds: 10,
    defaultBoundary: 0.5,
    trainRatio: 0.7,
    stratified: true,
    randomState: 42,
  };
}

const rateIn = (y: Uint8Array, pos: Int32Array, r: number) => {
  const p = [...pos].filter((i) => i % 4 === r);
  return p.reduce((s, i) => s + y[i], 0) / p.length;
};

for (const approx of [true, false]) {
  Deno.test(`threshold (${approx ? "approx" : "exact"}): thresholds move against each region's bias, the test part follows them`, async () => {
    const input = { ...biased(5), approx };
    const r = await thresholdMitigation(input);
    assert.equal(r.status.code, 0);
    assert.equal(r.train.length + r.test.length, 4000);
    assert.equal(r.newThresholds.length, 4);
    assert.deepEqual(r.newThresholds.map((t) => t.idx), [0, 1, 2, 3]);
    assert.ok(r.newThresholds[0].threshold > 0.5, "region 0 has too many positives: its threshold rises");
    assert.ok(r.newThresholds[3].threshold < 0.5, "region 3 has too few: its threshold falls");
    assert.ok(r.regionsDelta[0] < 0 && r.regionsDelta[3] > 0);
    if (!approx) assert.ok([...r.regionsDelta].every(Number.isInteger));
    // every test prediction is prob > its region's threshold (no ties: the scores are continuous)
    for (const i of r.test) {
      const t = r.newThresholds[i % 4];
      assert.equal(t.eq_to_thresh_flip_prob, -1);
      assert.equal(r.mitigatedPreds[i], input.prob[i] > t.threshold ? 1 : 0);
    }
    for (const i of r.train) assert.equal(r.mitigatedPreds[i], input.yPred[i]);
    assert.equal(r.nFlips, r.flipped.length);
    assert.ok(r.flipped.every((i) => r.mitigatedPreds[i] !== input.yPred[i]));
    // flips per region, counted from the test part's predictions (region of i: i mod 4)
    for (let g = 0; g < 4; g++) {
      const mine = [...r.test].filter((i) => i % 4 === g && r.mitigatedPreds[i] !== input.yPred[i]);
      assert.equal(r.regionFlips.toPositive[g], mine.filter((i) => r.mitigatedPreds[i] === 1).length);
      assert.equal(r.regionFlips.toNegative[g], mine.filter((i) => r.mitigatedPreds[i] === 0).length);
    }
    assert.ok(r.regionFlips.toNegative[0] > 0 && r.regionFlips.toPositive[0] === 0);
    assert.ok(r.regionFlips.toPositive[3] > 0 && r.regionFlips.toNegative[3] === 0);
    // the gap between the extreme regions' positive rates narrows on the test part
    const before = rateIn(input.yPred, r.test, 0) - rateIn(input.yPred, r.test, 3);
    const after = rateIn(r.mitigatedPreds, r.test, 0) - rateIn(r.mitigatedPreds, r.test, 3);
    assert.ok(Math.abs(after) < Math.abs(before) / 2, `gap ${before} → ${after}`);
    assert.equal(r.metricsBefore!.n, r.test.length);
    // the same request gives the same answer
    const again = await thresholdMitigation(input);
    assert.deepEqual({ ...again, seconds: null }, { ...r, seconds: null });
    // a split the caller made first (the service's, so the test part's audit runs beside the solver)
    const split = thresholdSplit(input);
    assert.deepEqual([split.train, split.test], [r.train, r.test]);
    const given = await thresholdMitigation({ ...input, split });
    assert.deepEqual({ ...given, seconds: null }, { ...r, seconds: null });
    // and the training part's fit made (or kept) by the caller: every training individual is in scope
    const fit = thresholdFit(input, split.train, input.yPred.length);
    assert.deepEqual(fit.trainScope, split.train);
    assert.equal(fit.trainRegions.members.reduce((s, m) => s + m.length, 0), split.train.length);
    const fitted = await thresholdMitigation({ ...input, split, fit });
    assert.deepEqual({ ...fitted, seconds: null }, { ...r, seconds: null });
  });
}

Deno.test("threshold: equal opportunity fits on the training individuals with y_true = 1 only", async () => {
  const input = { ...biased(8), equalOpp: true };
  const r = await thresholdMitigation(input);
  assert.equal(r.status.code, 0);
  const testPositives = r.test.filter((i) => input.yTrue![i] === 1);
  const rate = testPositives.reduce((s, i) => s + input.yPred[i], 0) / testPositives.length;
  assert.equal(r.positiveRateBefore, rate); // the TPR of the test part
});

Deno.test("threshold: 422 for probabilities outside [0, 1] or a bad boundary", async () => {
  const input = biased(9);
  const prob = input.prob.slice();
  prob[5] = NaN;
  await assert.rejects(thresholdMitigation({ ...input, prob }), /y_pred_prob must be a number in \[0, 1\]/);
  await assert.rejects(thresholdMitigation({ ...input, defaultBoundary: 1.5 }), /default_boundary/);
});
