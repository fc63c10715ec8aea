/**
 * Time-series anomaly detection with ADTK's detectors (and Rosner's generalized ESD test) over a series
 * sorted by time. Missing readings get a NaN score and no label; the global rules use the readings
 * present, the window rules (persist, level and volatility shift) need full windows, as ADTK's rolling
 * windows with min_periods = window do, so a gap never passes for a jump. Every rule built on the interquartile range scores a reading by how many
 * IQRs its statistic lies beyond the quartiles, so its label is exactly `score > c`.
 */
import { type Detection, labelAbove, quantileSorted, sortedPresent } from "./stats.ts";
import { studentTQuantile } from "./distributions.ts";
import { gridPositions } from "./impute_series.ts";

/** Runs a detector on the present readings only and spreads its scores back over the full series. */
function onPresent(values: Float64Array, fn: (x: Float64Array, at: number[]) => Detection): Detection {
  const at: number[] = [];
  values.forEach((v, i) => Number.isNaN(v) || at.push(i));
  const inner = fn(Float64Array.from(at, (i) => values[i]), at);
  const scores = new Float64Array(values.length).fill(NaN);
  const labels = new Uint8Array(values.length);
  at.forEach((i, k) => {
    scores[i] = inner.scores[k];
    labels[i] = inner.labels[k];
  });
  return { scores, labels, threshold: inner.threshold };
}

/** The distance outside [lo, hi] in units of `unit` (0 inside). */
function beyond(x: Float64Array, lo: number, hi: number, unit = 1): Float64Array {
  return x.map((v) => (Number.isNaN(v) ? NaN : Math.max(lo - v, v - hi, 0) / unit));
}

/** ADTK's InterQuartileRangeAD on a statistic: outside [Q1 − c·IQR, Q3 + c·IQR] is anomalous. */
export function iqrRule(stat: Float64Array, c: number): Detection {
  const s = sortedPresent(stat);
  const q1 = quantileSorted(s, 0.25), q3 = quantileSorted(s, 0.75);
  const unit = q3 - q1 || 1e-12 * Math.max(1, Math.abs(q1));
  return labelAbove(beyond(stat, q1, q3, unit), c);
}

/** ThresholdAD: readings below `low` or above `high` (score: how far beyond, in the series' units). */
export function detectThreshold(values: Float64Array, low = -Infinity, high = Infinity): Detection {
  return labelAbove(beyond(values, low, high), 0);
}

/** QuantileAD: readings below the `low` or above the `high` quantile of the series itself. */
export function detectQuantile(values: Float64Array, low = 0, high = 1): Detection {
  const s = sortedPresent(values);
  return detectThreshold(values, quantileSorted(s, low), quantileSorted(s, high));
}

/** InterQuartileRangeAD on the readings themselves. */
export function detectIqr(values: Float64Array, c = 3): Detection {
  return iqrRule(values, c);
}

/**
 * Rosner's generalized ESD test: removes the most extreme reading up to `maxAnoms` × n times and keeps
 * as outliers all up to the last step whose statistic beat its critical value. The extreme is always
 * the smallest or largest remaining reading, so one sort and running sums make it O(n log n).
 * Scores are |x − mean| / sd over the readings kept as normal.
 */
export function detectEsd(values: Float64Array, alpha = 0.05, maxAnoms = 0.1): Detection {
  return onPresent(values, (x) => {
    const n = x.length;
    const order = Array.from(x.keys()).sort((a, b) => x[a] - x[b]);
    const centre = x.reduce((a, b) => a + b, 0) / (n || 1); // sums of centred values keep their digits
    let s = 0, ss = 0;
    for (const v of x) {
      s += v - centre;
      ss += (v - centre) ** 2;
    }
    const removed: number[] = [];
    const lambdas: number[] = [];
    let lo = 0, hi = n - 1, found = 0;
    const r = Math.min(Math.floor(maxAnoms * n), n - 3);
    for (let i = 1; i <= r; i++) {
      const m = n - i + 1;
      const mu = s / m, sd = Math.sqrt(Math.max(0, (ss - (s * s) / m) / (m - 1)));
      const dLo = Math.abs(x[order[lo]] - centre - mu), dHi = Math.abs(x[order[hi]] - centre - mu);
      const pick = dHi >= dLo ? order[hi--] : order[lo++];
      const R = sd > 0 ? Math.max(dLo, dHi) / sd : 0;
      const t = studentTQuantile(1 - alpha / (2 * m), m - 2);
      const lambda = (m - 1) * t / Math.sqrt((m - 2 + t * t) * m);
      lambdas.push(lambda);
      if (R > lambda) found = i;
      removed.push(pick);
      const v = x[pick] - centre;
      s -= v;
      ss -= v * v;
    }
    const outlier = new Uint8Array(n);
    for (const i of removed.slice(0, found)) outlier[i] = 1;
    let cs = 0, css = 0, cn = 0;
    x.forEach((v, i) => {
      if (outlier[i]) return;
      cs += v;
      css += v * v;
      cn++;
    });
    const mu = cs / cn, sd = Math.sqrt(Math.max(0, (css - cn * mu * mu) / Math.max(1, cn - 1))) || 1;
    const threshold = lambdas[found] ?? lambdas.at(-1) ?? NaN; // the critical value no reading beat
    return { scores: x.map((v) => Math.abs(v - mu) / sd), labels: outlier, threshold };
  });
}

/** True when values[from, to) holds no gap: ADTK's windows need all their readings (min_periods = window). */
function full(x: Float64Array, from: number, to: number): boolean {
  if (from < 0 || to > x.length) return false;
  for (let i = from; i < to; i++) if (Number.isNaN(x[i])) return false;
  return true;
}

/** The median of values[from, to). */
function medianOf(x: Float64Array, from: number, to: number): number {
  return quantileSorted(x.slice(from, to).sort(), 0.5);
}

/** Sample standard deviation (ddof 1, as pandas' rolling std) of values[from, to). */
function stdOf(x: Float64Array, from: number, to: number): number {
  let s = 0, ss = 0;
  for (let i = from; i < to; i++) s += x[i];
  const m = s / (to - from);
  for (let i = from; i < to; i++) ss += (x[i] - m) ** 2;
  return Math.sqrt(ss / (to - from - 1));
}

/** PersistAD: a reading against the median of the `window` readings before it (a value that sticks out). */
export function detectPersist(values: Float64Array, window = 1, c = 3): Detection {
  const x = values;
  return iqrRule(x.map((v, t) => (full(x, t - window, t + 1) ? v - medianOf(x, t - window, t) : NaN)), c);
}

/** LevelShiftAD: the median of the `window` readings from t against the `window` before t. */
export function detectLevelShift(values: Float64Array, window = 5, c = 6): Detection {
  const x = values;
  const stat = x.map((_, t) =>
    full(x, t - window, t + window) ? medianOf(x, t, t + window) - medianOf(x, t - window, t) : NaN
  );
  return iqrRule(stat, c);
}

/** VolatilityShiftAD: the relative change of the standard deviation from the `window` before t to the `window` from t. */
export function detectVolatilityShift(values: Float64Array, window = 10, c = 6): Detection {
  const x = values;
  const stat = x.map((_, t) => {
    if (!full(x, t - window, t + window)) return NaN;
    const left = stdOf(x, t - window, t);
    return left > 0 ? (stdOf(x, t, t + window) - left) / left : NaN;
  });
  return iqrRule(stat, c);
}

/**
 * SeasonalAD: subtract the mean profile of each phase of the cycle (`freq` readings on the regular grid of
 * the median spacing, so gaps in time keep the phase), then the IQR rule on what is left.
 */
export function detectSeasonal(times: Float64Array, values: Float64Array, freq: number, c = 3): Detection {
  const { pos } = gridPositions(times);
  return onPresent(values, (x, at) => {
    const phase = at.map((i) => ((pos[i] % freq) + freq) % freq);
    const sum = new Float64Array(freq), cnt = new Float64Array(freq);
    x.forEach((v, k) => {
      sum[phase[k]] += v;
      cnt[phase[k]]++;
    });
    return iqrRule(x.map((v, k) => v - sum[phase[k]] / cnt[phase[k]]), c);
  });
}
