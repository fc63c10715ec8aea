import assert from "node:assert/strict";
import {
  backwardFill,
  forwardFill,
  imputeRollingMean,
  imputeSeasonal,
  inferPeriod,
  interpolateLinear,
  interpolateSpline,
  interpolateTime,
} from "../../../core/cleaning/impute_series.ts";
import { dailySeries } from "./fixtures.ts";
import { Rng } from "../../../core/random.ts";

const f = (xs: (number | null)[]) => Float64Array.from(xs, (v) => v ?? NaN);
const arr = (x: Float64Array) => Array.from(x, (v) => (Number.isNaN(v) ? null : v));

Deno.test("linear, time, ffill, bfill: pandas' answers on small series (hand calculation)", () => {
  const v = f([null, 1, null, null, 4, null]);
  assert.deepEqual(arr(interpolateLinear(v)), [1, 1, 2, 3, 4, 4]); // ends: nearest reading (limit_direction both)
  const t = f([0, 1, 2, 5, 6, 7]); // 0 at 0 h and 6 at 5 h: 1.2 per hour, unlike positions (2 per row)
  assert.deepEqual(arr(interpolateTime(t, f([0, null, null, 6, null, 8]))), [0, 1.2, 2.4, 6, 7, 8]);
  assert.deepEqual(arr(forwardFill(v)), [null, 1, 1, 1, 4, 4]);
  assert.deepEqual(arr(backwardFill(v)), [1, 1, 4, 4, 4, null]);
});

Deno.test("spline (order 3, not-a-knot) reproduces a cubic exactly on irregular times, ends included", () => {
  const cubic = (x: number) => 0.5 * x ** 3 - 2 * x ** 2 + x - 3;
  const t = f([0, 0.7, 1.5, 2, 3.2, 4, 4.1, 5.5, 7, 8]);
  const v = t.map(cubic);
  for (const i of [0, 2, 5, 6, 9]) v[i] = NaN;
  const out = interpolateSpline(t, v, 3);
  t.forEach((x, i) => assert.ok(Math.abs(out[i] - cubic(x)) < 1e-9, `at ${x}: ${out[i]} vs ${cubic(x)}`));
  const rows = f([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(arr(interpolateSpline(rows, f([0, null, 2, null, 4, 5, 6, 7, 8, 9]), 1)).slice(0, 4), [
    0,
    1,
    2,
    3,
  ]);
});

Deno.test("inferPeriod: 24 for hourly readings, 7 for daily, null otherwise", () => {
  const hours = Float64Array.from({ length: 50 }, (_, i) => i * 3600_000);
  assert.equal(inferPeriod(hours), 24);
  assert.equal(inferPeriod(hours.map((t) => t * 24)), 7);
  assert.equal(inferPeriod(hours.map((t) => t / 60)), null);
});

/** Removes the readings of each [from, to) gap, returns the damaged copy and the positions removed. */
function gaps(values: Float64Array, spans: [number, number][]) {
  const damaged = values.slice();
  const removed: number[] = [];
  for (const [a, b] of spans) {
    for (let i = a; i < b; i++) {
      damaged[i] = NaN;
      removed.push(i);
    }
  }
  return { damaged, removed };
}

const rmseAt = (removed: number[], truth: Float64Array, got: Float64Array) =>
  Math.sqrt(removed.reduce((s, i) => s + (got[i] - truth[i]) ** 2, 0) / removed.length);

// The daily cycle has amplitude 6 and the noise sd 0.5. A 12-hour gap spans half a cycle, so a straight
// line across it misses by several degrees; seasonal adjustment keeps the cycle and should miss by little
// more than the noise: its bound is 2 × noise sd (1.0), and it must beat linear interpolation by 3×.
Deno.test("seasonal: 12-hour gaps in a daily cycle filled within 2× the noise sd, 3× better than a straight line", () => {
  const { times, values } = dailySeries(24 * 30, 8, 0.5);
  const { damaged, removed } = gaps(values, [[100, 112], [300, 312], [500, 506], [650, 662]]);
  const seasonal = rmseAt(removed, values, imputeSeasonal(times, damaged, 24));
  const linear = rmseAt(removed, values, interpolateTime(times, damaged));
  assert.ok(seasonal < 1.0, `seasonal ${seasonal}`);
  assert.ok(seasonal * 3 < linear, `seasonal ${seasonal} vs linear ${linear}`);
});

// Short gaps (2 readings) in the same series: the slope over 3 hours is at most 6·2π/24·3 ≈ 4.7, so
// every interpolating method must stay within 1.5 (noise plus curvature) and the spline within 1.0.
Deno.test("short gaps: linear, time, spline and rolling_mean within stated bounds, ffill/bfill leave no gap", () => {
  const { times, values } = dailySeries(24 * 10, 9, 0.5);
  const spans: [number, number][] = Array.from({ length: 20 }, (_, k) => [5 + k * 11, 7 + k * 11]);
  const { damaged, removed } = gaps(values, spans);
  assert.ok(rmseAt(removed, values, interpolateLinear(damaged)) < 1.5);
  assert.ok(rmseAt(removed, values, interpolateTime(times, damaged)) < 1.5);
  assert.ok(rmseAt(removed, values, interpolateSpline(times, damaged, 3)) < 1.0);
  assert.ok(rmseAt(removed, values, imputeRollingMean(damaged, 5)) < 1.5);
  for (const out of [forwardFill(damaged), backwardFill(damaged)]) {
    assert.ok(removed.every((i) => !Number.isNaN(out[i])));
  }
});

Deno.test("rolling_mean: the centred window's mean, widened until two readings fall in it", () => {
  assert.deepEqual(arr(imputeRollingMean(f([1, 2, null, 4, 5]), 3)), [1, 2, 3, 4, 5]);
  // index 2: window 3 holds one reading (1), widened to 5 it holds 0, 1, 8 → 3; index 3: 1, 8, 9 → 6
  assert.deepEqual(arr(imputeRollingMean(f([0, 1, null, null, 8, 9]), 3)).slice(2, 4), [3, 6]);
});

// A slowly varying series: x(t) = 10 + 3·sin(2πt/500) + u, u uniform in [−0.05, 0.05]. The sine moves by at
// most 3·2π/500 ≈ 0.0377 per step, so a reading carried d steps (forward or back) misses the truth by at most
// 0.0377·d + 0.1 (the noise of both readings). ffill carries the reading before a gap d = i − (a − 1) steps,
// bfill the reading after it d = b − i steps, over gaps [a, b) of 1 to 10 readings.
Deno.test("ffill, bfill: every removed reading within 0.0377·(steps carried) + 0.1 of the truth", () => {
  const rng = new Rng(61);
  const n = 2000, slope = 3 * 2 * Math.PI / 500, noise = 0.05;
  const values = Float64Array.from(
    { length: n },
    (_, t) => 10 + 3 * Math.sin(2 * Math.PI * t / 500) + noise * (2 * rng.next() - 1),
  );
  const spans: [number, number][] = [];
  for (let a = 5; a < n - 20; a += 40) spans.push([a, a + 1 + rng.int(10)]);
  const { damaged } = gaps(values, spans);
  const fwd = forwardFill(damaged), back = backwardFill(damaged);
  let worst = 0;
  for (const [a, b] of spans) {
    for (let i = a; i < b; i++) {
      const f = Math.abs(fwd[i] - values[i]), g = Math.abs(back[i] - values[i]);
      assert.ok(f <= slope * (i - a + 1) + 2 * noise, `ffill at ${i}: ${f}`);
      assert.ok(g <= slope * (b - i) + 2 * noise, `bfill at ${i}: ${g}`);
      worst = Math.max(worst, f, g);
    }
  }
  assert.ok(worst <= slope * 10 + 2 * noise); // ≈ 0.48 over the longest gap
});
