/**
 * From a region's continuous δ to a decision threshold on y_pred_prob and a tie probability, by the
 * rules of docs/spatial-fairness.md "From δ to a threshold", and predictions with those thresholds.
 * |δ| beyond the number of candidates is an InvalidParamError (the documented rule; it needs y_pred ≠ (prob > t0)).
 * A δ within 1e-9 of an integer counts as that integer (solver noise such as 2.9999999998 would
 * otherwise land just beside the midpoint the integer gives).
 */
import { ParamMismatchError } from "../../errors.ts";
import type { Rng } from "../../random.ts";

/**
 * One line of `new_thresholds` (the answer adds the region's id); eq_to_thresh_flip_prob = -1 when no
 * tie probability is set: a number in every line, as the reference answered, never null.
 */
export interface RegionThreshold {
  idx: number;
  threshold: number;
  eq_to_thresh_flip_prob: number;
}

/**
 * The threshold and tie probability of a region whose scored members (train part) have probabilities
 * `probs`, for δ (more positives when > 0) and default boundary t0. An InvalidParamError when |δ| asks for more
 * candidates than the region has (y_pred disagreeing with prob > t0 makes that possible); the error
 * names the region by `regionId` (its id in the answer's stats) and `idx` (its position).
 */
export function regionThreshold(
  delta: number,
  probs: ArrayLike<number>,
  t0: number,
  idx = 0,
  regionId = idx,
): RegionThreshold {
  const d = Math.abs(delta - Math.round(delta)) <= 1e-9 ? Math.round(delta) : delta;
  if (d === 0) return { idx, threshold: t0, eq_to_thresh_flip_prob: -1 };
  const up = d > 0, buf = new Float64Array(probs.length);
  let len = 0;
  for (let i = 0; i < probs.length; i++) if (up ? probs[i] <= t0 : probs[i] > t0) buf[len++] = probs[i];
  // a typed array's own numeric sort (no comparator: several times faster at a region of 100,000), read
  // from the end for the descending order of δ > 0
  const sorted = buf.subarray(0, len).sort();
  const s = up
    ? { length: len, at: (i: number) => sorted[len - 1 - i] }
    : { length: len, at: (i: number) => sorted[i] };
  const whole = Math.trunc(d), f = Math.abs(d - whole), k = Math.abs(whole) - 1;
  if (Math.abs(d) > s.length) {
    throw new ParamMismatchError(
      `region ${regionId} (idx ${idx}): δ = ${d} asks for more flips than the ${s.length} of its training members on the ` +
        `other side of default_boundary ${t0}; y_pred must agree with y_pred_prob > default_boundary`,
      ["default_boundary"],
    );
  }
  const out = (threshold: number, p = -1) => ({ idx, threshold, eq_to_thresh_flip_prob: p });
  if (k === -1) {
    if (s.at(0) !== t0) return out(t0 + f * ((t0 + s.at(0)) / 2 - t0));
    let ties = 0;
    while (ties < s.length && s.at(ties) === t0) ties++;
    return out(t0, f / ties);
  }
  if (k + 1 < s.length && s.at(k) === s.at(k + 1)) {
    let inc = 0, ext = 0;
    for (let i = k; i >= 0 && s.at(i) === s.at(k); i--) inc++;
    for (let i = k + 1; i < s.length && s.at(i) === s.at(k); i++) ext++;
    const p = (inc + f) / (inc + ext);
    return out(s.at(k), up ? p : 1 - p);
  }
  const next = k + 1 < s.length ? s.at(k + 1) : up ? 0 : 1, m = (s.at(k) + next) / 2;
  return out(f === 0 ? m : s.at(k) + f * (m - s.at(k)));
}

/** 1 when prob > threshold; at the threshold, 1 with the tie probability (a draw of `rng`) when set. */
export function decide(prob: number, t: RegionThreshold, rng: Rng): number {
  if (prob > t.threshold) return 1;
  if (prob === t.threshold && t.eq_to_thresh_flip_prob >= 0) {
    return rng.next() < t.eq_to_thresh_flip_prob ? 1 : 0;
  }
  return 0;
}

/**
 * Predictions at `positions` (ascending) with per-region thresholds. An individual in no region keeps
 * prob > t0; in one region, that region decides; in several, each votes with weight `weight[r]` and
 * the prediction is 1 iff the votes for 1 outweigh those for 0. Draws happen in position order, then
 * region order, so a seed gives one answer.
 */
export function predictWithThresholds(
  prob: Float64Array,
  positions: Int32Array,
  regionsOf: { start: Int32Array; regs: Int32Array },
  thresholds: RegionThreshold[],
  weight: Float64Array,
  t0: number,
  rng: Rng,
): Uint8Array {
  const out = new Uint8Array(positions.length);
  for (let k = 0; k < positions.length; k++) {
    const i = positions[k], a = regionsOf.start[i], b = regionsOf.start[i + 1];
    if (b === a) out[k] = prob[i] > t0 ? 1 : 0;
    else if (b === a + 1) out[k] = decide(prob[i], thresholds[regionsOf.regs[a]], rng);
    else {
      let yes = 0, no = 0;
      for (let t = a; t < b; t++) {
        const r = regionsOf.regs[t];
        decide(prob[i], thresholds[r], rng) ? (yes += weight[r]) : (no += weight[r]);
      }
      out[k] = yes > no ? 1 : 0;
    }
  }
  return out;
}
