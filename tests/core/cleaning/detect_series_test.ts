import assert from "node:assert/strict";
import {
  detectEsd,
  detectIqr,
  detectLevelShift,
  detectPersist,
  detectQuantile,
  detectSeasonal,
  detectThreshold,
  detectVolatilityShift,
} from "../../../core/cleaning/detect_series.ts";
import { studentTCdf, studentTQuantile } from "../../../core/cleaning/distributions.ts";
import { SERIES_ANOMALIES, timeSeriesDemo } from "../../../core/demo/datasets.ts";
import { Rng } from "../../../core/random.ts";
import { score } from "./fixtures.ts";

const f = (xs: (number | null)[]) => Float64Array.from(xs, (v) => v ?? NaN);
const flagged = (labels: Uint8Array) => [...labels.keys()].filter((i) => labels[i]);

Deno.test("Student's t: cdf and quantiles match scipy.stats.t to 1e-9", () => {
  const cases: [number, number, number][] = [
    [0.975, 10, 2.228138851986274],
    [0.99, 3, 4.540702858568132],
    [1 - 0.05 / (2 * 1440), 1438, 4.153148190829319],
    [0.999, 1, 318.30883898555015],
    [0.95, 2.5, 2.5582186141359355],
  ];
  for (const [p, df, want] of cases) {
    const got = studentTQuantile(p, df);
    assert.ok(Math.abs(got - want) < 1e-9 * want, `t.ppf(${p}, ${df}) = ${got}, scipy ${want}`);
  }
  assert.ok(Math.abs(studentTCdf(1.5, 10) - 0.9177463367772799) < 1e-12);
  assert.equal(studentTQuantile(0.025, 10), -studentTQuantile(0.975, 10));
});

Deno.test("threshold, quantile, iqr: the ADTK rules on a small series (hand calculation)", () => {
  const v = f([1, 2, null, 3, 4, 100, -50]);
  assert.deepEqual(flagged(detectThreshold(v, 0, 10).labels), [5, 6]);
  assert.deepEqual([...detectThreshold(v, 0, 10).scores].slice(4), [0, 90, 50]);
  assert.ok(Number.isNaN(detectThreshold(v, 0).scores[2]));
  // quantiles 0.2 and 0.8 of [-50, 1, 2, 3, 4, 100] (linear): 1 and 4
  assert.deepEqual(flagged(detectQuantile(v, 0.2, 0.8).labels), [5, 6]);
  // quartiles 1.25 and 3.75, IQR 2.5: c = 3 gives fences at -6.25 and 11.25
  assert.deepEqual(flagged(detectIqr(v, 3).labels), [5, 6]);
});

// NIST/SEMATECH e-Handbook §1.3.5.17.3: Rosner's 54 readings, r = 10, α = 0.05 → exactly 3 outliers.
const ROSNER = [
  -0.25,
  0.68,
  0.94,
  1.15,
  1.2,
  1.26,
  1.26,
  1.34,
  1.38,
  1.43,
  1.49,
  1.49,
  1.55,
  1.56,
  1.58,
  1.65,
  1.69,
  1.7,
  1.76,
  1.77,
  1.81,
  1.91,
  1.94,
  1.96,
  1.99,
  2.06,
  2.09,
  2.1,
  2.14,
  2.15,
  2.23,
  2.24,
  2.26,
  2.35,
  2.37,
  2.4,
  2.47,
  2.54,
  2.62,
  2.64,
  2.9,
  2.92,
  2.92,
  2.93,
  3.21,
  3.26,
  3.3,
  3.59,
  3.68,
  4.3,
  4.64,
  5.34,
  5.42,
  6.01,
];

Deno.test("esd: Rosner's example from the NIST handbook finds its three outliers", () => {
  const d = detectEsd(Float64Array.from(ROSNER), 0.05, 0.19); // ⌊0.19 · 54⌋ = 10 steps
  assert.deepEqual(flagged(d.labels), [51, 52, 53]);
  // the 4th step's critical value in the handbook's table: λ4 = 3.136
  assert.ok(Math.abs(d.threshold - 3.136) < 5e-4, `λ4 ${d.threshold}`);
});

Deno.test("esd: at the planted rate (1 %) of ±6 sd spikes in Gaussian noise, recall and precision ≥ 0.9", () => {
  const rng = new Rng(41);
  const n = 3000;
  const x = Float64Array.from({ length: n }, () => 10 + 2 * rng.normal());
  const planted = new Set<number>();
  while (planted.size < n / 100) planted.add(rng.int(n));
  for (const i of planted) x[i] += (rng.next() < 0.5 ? -1 : 1) * 12;
  const s = score(detectEsd(x, 0.05, 0.05).labels, planted);
  assert.ok(s.recall >= 0.9 && s.precision >= 0.9, JSON.stringify(s));
});

/** The seeded demo series of sensor_readings: temperature with gaps and +15 °C spikes at SERIES_ANOMALIES. */
function demo() {
  const rows = [...timeSeriesDemo()];
  return {
    times: Float64Array.from(rows, (r) => Date.parse(r.timestamp as string)),
    temperature: Float64Array.from(rows, (r) => (r.temperature as number | null) ?? NaN),
  };
}

// The spikes sit on a daily cycle of amplitude 6: raw-value rules miss the ones at the trough, but a
// reading against its own phase's profile stands out by 15 °C against a residual spread of about 1 °C.
Deno.test("seasonal: on the demo sensor series every planted spike and nothing else", () => {
  const { times, temperature } = demo();
  const d = detectSeasonal(times, temperature, 24, 3);
  assert.deepEqual(flagged(d.labels), SERIES_ANOMALIES);
});

// A spike differs from the reading before it by about 15 °C; hourly changes otherwise stay within a few
// degrees. The reading after a spike drops back by as much, so PersistAD (both sides) flags it too:
// every flag must be a spike or the hour just after one. The first reading after each gap (SERIES_GAPS)
// has no full window and must not pass for a jump.
Deno.test("persist: on the demo sensor series all spikes, and only spikes or the hour after", () => {
  const { temperature } = demo();
  const hits = flagged(detectPersist(temperature, 1, 3).labels);
  for (const a of SERIES_ANOMALIES) assert.ok(hits.includes(a), `missed ${a}`);
  for (const h of hits) {
    assert.ok(SERIES_ANOMALIES.some((a) => h === a || h === a + 1), `false alarm at ${h}`);
  }
});

// Window 20: the difference of two medians of 20 N(0, 1) readings has sd ≈ 0.4 (IQR ≈ 0.54), so a step of
// 5 stands about 9 IQRs out, beyond ADTK's default c = 6.
Deno.test("level_shift: a +5 sd step is found within one window of where it happens, and only there", () => {
  const rng = new Rng(42);
  const x = Float64Array.from({ length: 1000 }, (_, i) => rng.normal() + (i >= 600 ? 5 : 0));
  const hits = flagged(detectLevelShift(x, 20, 6).labels);
  assert.ok(hits.includes(600) && hits.every((h) => Math.abs(h - 600) <= 20), `hits ${hits}`);
});

Deno.test("volatility_shift: the sd quadrupling at 500 is found within one window, and only there", () => {
  const rng = new Rng(43);
  const x = Float64Array.from({ length: 1000 }, (_, i) => rng.normal() * (i >= 500 ? 4 : 1));
  const hits = flagged(detectVolatilityShift(x, 30, 6).labels);
  assert.ok(hits.includes(500) && hits.every((h) => Math.abs(h - 500) <= 30), `hits ${hits}`);
});

/**
 * 2,000 readings of a level of 20 with N(0, 1) noise and 20 spikes (1 %) of ±10 planted at random places,
 * alternately up and down (10 each way), so the bulk never reaches them: the largest of 1,980 normal draws
 * is about 3.5 sd, a spike's own noise leaves it beyond 6 sd.
 */
function spikySeries(seed: number) {
  const rng = new Rng(seed);
  const n = 2000;
  const x = Float64Array.from({ length: n }, () => 20 + rng.normal());
  const planted = new Set<number>();
  while (planted.size < n / 100) planted.add(rng.int(n));
  [...planted].forEach((i, k) => (x[i] += k % 2 ? -10 : 10));
  return { x, planted };
}

// threshold: a user who knows the level (20) and the noise (sd 1) puts the limits 6 sd out: a normal
// reading crosses with probability 2·10⁻⁹, a spike (10 sd) always does.
// quantile: at 1 % expected anomalies split both ways, low 0.005 and high 0.995: the 0.995 quantile sits at
// sorted position 0.995·1,999 = 1,989.005, between the largest normal reading and the smallest up-spike, so
// exactly the 10 readings above it are flagged, and likewise the 10 below the 0.005 quantile (position 9.995).
// iqr: ADTK's default c = 3: quartiles 20 ± 0.674, IQR 1.349, fences 20 ± 4.72 sd: a normal reading crosses
// with probability 2.4·10⁻⁶ (0.005 expected false alarms in 1,980).
Deno.test("threshold, quantile, iqr: 1 % planted spikes in 2,000 noisy readings, recall and precision ≥ 0.9", () => {
  const { x, planted } = spikySeries(44);
  const runs = {
    threshold: detectThreshold(x, 14, 26),
    quantile: detectQuantile(x, 0.005, 0.995),
    iqr: detectIqr(x, 3),
  };
  for (const [name, d] of Object.entries(runs)) {
    const s = score(d.labels, planted);
    assert.ok(s.recall >= 0.9 && s.precision >= 0.9, `${name}: ${JSON.stringify(s)}`);
  }
  assert.equal(score(runs.quantile.labels, planted).flagged, 20); // 10 above, 10 below, as derived
});
