/**
 * Time-series imputation over a series sorted by time: `times` in ms, `values` with NaN gaps. Each
 * function returns a filled copy (NaN where nothing could fill). The interpolations behave as pandas'
 * `interpolate(method, limit_direction="both")`, so leading and trailing gaps are filled too.
 */
import { median } from "./stats.ts";

/** Present positions of a series. */
function presentIdx(values: Float64Array): number[] {
  const out: number[] = [];
  values.forEach((v, i) => Number.isNaN(v) || out.push(i));
  return out;
}

/** Piecewise-linear interpolation over x (constant beyond the ends, as np.interp). */
function interpOver(x: ArrayLike<number>, values: Float64Array): Float64Array {
  const idx = presentIdx(values);
  const out = values.slice();
  if (!idx.length) return out;
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isNaN(values[i])) continue;
    while (k < idx.length && idx[k] < i) k++;
    if (k === 0) out[i] = values[idx[0]];
    else if (k === idx.length) out[i] = values[idx[k - 1]];
    else {
      const a = idx[k - 1], b = idx[k];
      out[i] = values[a] + (values[b] - values[a]) * (x[i] - x[a]) / (x[b] - x[a]);
    }
  }
  return out;
}

/** pandas `linear`: straight lines between neighbours, ignoring the time stamps (rows equally spaced). */
export function interpolateLinear(values: Float64Array): Float64Array {
  return interpOver(Float64Array.from(values, (_, i) => i), values);
}

/** pandas `time`: straight lines weighted by the real time between readings. */
export function interpolateTime(times: Float64Array, values: Float64Array): Float64Array {
  return interpOver(times, values);
}

/** Carries the last reading forward; leading gaps stay missing (there is nothing before them). */
export function forwardFill(values: Float64Array): Float64Array {
  const out = values.slice();
  for (let i = 1; i < out.length; i++) if (Number.isNaN(out[i])) out[i] = out[i - 1];
  return out;
}

/** Carries the next reading backward; trailing gaps stay missing. */
export function backwardFill(values: Float64Array): Float64Array {
  const out = values.slice();
  for (let i = out.length - 2; i >= 0; i--) if (Number.isNaN(out[i])) out[i] = out[i + 1];
  return out;
}

/**
 * pandas `spline` (scipy's interpolating UnivariateSpline, s = 0) over the time stamps: order 3 is the
 * not-a-knot cubic spline through every present reading, order 1 the polyline.
 */
export function interpolateSpline(times: Float64Array, values: Float64Array, order: 1 | 3 = 3): Float64Array {
  const idx = presentIdx(values);
  if (order === 1 || idx.length < 4) return interpolateTime(times, values);
  const t0 = times[idx[0]], scale = (times[idx.at(-1)!] - t0) / (idx.length - 1) || 1;
  const x = idx.map((i) => (times[i] - t0) / scale), y = idx.map((i) => values[i]);
  const slope = notAKnotSlopes(x, y);
  const out = values.slice();
  let k = 0;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isNaN(values[i])) continue;
    const xi = (times[i] - t0) / scale;
    while (k < x.length - 2 && x[k + 1] < xi) k++;
    const h = x[k + 1] - x[k], t = (xi - x[k]) / h;
    // cubic Hermite form of the piece; beyond the ends the end pieces extend (as scipy extrapolates)
    out[i] = (2 * t ** 3 - 3 * t ** 2 + 1) * y[k] + (t ** 3 - 2 * t ** 2 + t) * h * slope[k] +
      (-2 * t ** 3 + 3 * t ** 2) * y[k + 1] + (t ** 3 - t ** 2) * h * slope[k + 1];
  }
  return out;
}

/** Slopes at the knots of the not-a-knot cubic spline through (x, y), n ≥ 4: scipy CubicSpline's system. */
function notAKnotSlopes(x: number[], y: number[]): Float64Array {
  const n = x.length;
  const h = Float64Array.from({ length: n - 1 }, (_, i) => x[i + 1] - x[i]);
  const d = Float64Array.from({ length: n - 1 }, (_, i) => (y[i + 1] - y[i]) / h[i]);
  const lo = new Float64Array(n), di = new Float64Array(n), up = new Float64Array(n), r = new Float64Array(n);
  for (let i = 1; i < n - 1; i++) {
    lo[i] = h[i];
    di[i] = 2 * (h[i - 1] + h[i]);
    up[i] = h[i - 1];
    r[i] = 3 * (h[i] * d[i - 1] + h[i - 1] * d[i]);
  }
  const a = h[0] + h[1];
  di[0] = h[1];
  up[0] = a;
  r[0] = ((h[0] + 2 * a) * h[1] * d[0] + h[0] ** 2 * d[1]) / a;
  const m = n - 1, b = h[m - 1] + h[m - 2];
  di[m] = h[m - 2];
  lo[m] = b;
  r[m] = (h[m - 1] ** 2 * d[m - 2] + (2 * b + h[m - 1]) * h[m - 2] * d[m - 1]) / b;
  for (let i = 1; i < n; i++) { // Thomas algorithm
    const w = lo[i] / di[i - 1];
    di[i] -= w * up[i - 1];
    r[i] -= w * r[i - 1];
  }
  const s = new Float64Array(n);
  s[m] = r[m] / di[m];
  for (let i = m - 1; i >= 0; i--) s[i] = (r[i] - up[i] * s[i + 1]) / di[i];
  return s;
}

/** The positions of readings on a regular grid of the median spacing (so gaps in time keep their phase). */
export function gridPositions(times: Float64Array): { step: number; pos: Int32Array } {
  const diffs = Float64Array.from(
    { length: Math.max(0, times.length - 1) },
    (_, i) => times[i + 1] - times[i],
  );
  const step = median(diffs.filter((d) => d > 0)) || 1;
  return { step, pos: Int32Array.from(times, (t) => Math.round((t - times[0]) / step)) };
}

const HOUR = 3600_000;

/** The usual cycle of a series by its spacing (24 hourly readings a day, 7 daily a week), else null. */
export function inferPeriod(times: Float64Array): number | null {
  const { step } = gridPositions(times);
  if (Math.abs(step - HOUR) < 1000) return 24;
  if (Math.abs(step - 24 * HOUR) < 60_000) return 7;
  return null;
}

/**
 * Seasonally adjusted interpolation (imputeTS `na_seadec`): estimate the seasonal profile of `period`
 * readings from a moving-average trend, remove it, interpolate the adjusted series in time, add it back.
 */
export function imputeSeasonal(times: Float64Array, values: Float64Array, period: number): Float64Array {
  const { pos } = gridPositions(times);
  const phaseOf = (i: number) => ((pos[i] % period) + period) % period;
  const base = interpolateTime(times, values);
  const trend = centredMovingAverage(base, period);
  const sum = new Float64Array(period), cnt = new Float64Array(period);
  values.forEach((v, i) => {
    if (Number.isNaN(v) || Number.isNaN(trend[i])) return;
    sum[phaseOf(i)] += v - trend[i];
    cnt[phaseOf(i)]++;
  });
  const profile = sum.map((s, p) => (cnt[p] ? s / cnt[p] : 0));
  const level = profile.reduce((a, b) => a + b, 0) / period;
  const seasonal = (i: number) => profile[phaseOf(i)] - level;
  const adjusted = values.map((v, i) => v - seasonal(i));
  return interpolateTime(times, adjusted).map((v, i) => v + seasonal(i));
}

/** Classical decomposition's trend: a centred moving average (2×period when even), NaN at the ends. */
function centredMovingAverage(x: Float64Array, period: number): Float64Array {
  const n = x.length, out = new Float64Array(n).fill(NaN);
  const even = period % 2 === 0, half = Math.floor(period / 2);
  for (let i = half; i < n - half; i++) {
    let s = 0;
    if (even) {
      s = (x[i - half] + x[i + half]) / 2;
      for (let k = i - half + 1; k < i + half; k++) s += x[k];
    } else for (let k = i - half; k <= i + half; k++) s += x[k];
    out[i] = s / period;
  }
  return out;
}

/**
 * Rolling mean: each gap gets the mean of the present readings in a centred window of `window` rows,
 * widened (as imputeTS `na_ma` does) until it holds at least two readings, so long gaps are filled too.
 */
export function imputeRollingMean(values: Float64Array, window: number): Float64Array {
  const out = values.slice();
  const n = values.length;
  const present = presentIdx(values).length;
  for (let i = 0; i < n; i++) {
    if (!Number.isNaN(values[i])) continue;
    let left = Math.floor((window - 1) / 2), right = window - 1 - left;
    for (;;) {
      let s = 0, c = 0;
      for (let k = Math.max(0, i - left); k <= Math.min(n - 1, i + right); k++) {
        if (!Number.isNaN(values[k])) {
          s += values[k];
          c++;
        }
      }
      if (c >= Math.min(2, present)) {
        out[i] = c ? s / c : NaN;
        break;
      }
      left++;
      right++;
    }
  }
  return out;
}
