/**
 * The small statistics every cleaning method shares, over typed columns where NaN marks a missing value
 * (the pandas convention), so no method has to special-case null.
 */

/** A table cell as stored: what a JSON document field can hold for the cleaning methods. */
export type Cell = string | number | boolean | null;

/** Cells filled by an imputation: row positions and the value each one gets. */
export interface Filled {
  column: string;
  rows: Int32Array;
  values: Cell[];
}

/** What an imputation returns: the filled cells per column and how many stayed missing. */
export interface Imputation {
  filled: Filled[];
  unfilled: Record<string, number>;
}

/** What a detection returns: one score per row (higher = more anomalous, NaN = not scored) and a label. */
export interface Detection {
  scores: Float64Array;
  labels: Uint8Array;
  /** The score above which a row is labelled an anomaly. */
  threshold: number;
}

/** The present (non-NaN) values of a column, sorted ascending; quantiles and medians start from here. */
export function sortedPresent(values: Float64Array): Float64Array {
  let n = 0;
  for (const v of values) if (!Number.isNaN(v)) n++;
  const out = new Float64Array(n);
  let i = 0;
  for (const v of values) if (!Number.isNaN(v)) out[i++] = v;
  return out.sort();
}

/** The q-quantile of sorted values with numpy's default linear interpolation (NaN when empty). */
export function quantileSorted(sorted: Float64Array, q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const pos = (n - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** The mean of the present values (NaN when none). */
export function mean(values: Float64Array): number {
  let s = 0, n = 0;
  for (const v of values) {
    if (!Number.isNaN(v)) {
      s += v;
      n++;
    }
  }
  return n ? s / n : NaN;
}

/** The standard deviation of the present values (ddof 0, as numpy and pandas' z-scores in PyOD use). */
export function std(values: Float64Array, ddof = 0): number {
  const m = mean(values);
  let s = 0, n = 0;
  for (const v of values) {
    if (!Number.isNaN(v)) {
      s += (v - m) ** 2;
      n++;
    }
  }
  return n - ddof > 0 ? Math.sqrt(s / (n - ddof)) : NaN;
}

/** The median of the present values (NaN when none). */
export function median(values: Float64Array): number {
  return quantileSorted(sortedPresent(values), 0.5);
}

/** Counts the missing (NaN) values. */
export function countMissing(values: Float64Array): number {
  let n = 0;
  for (const v of values) if (Number.isNaN(v)) n++;
  return n;
}

/** Row positions of the missing values, so imputations report exactly the cells they fill. */
export function missingRows(values: Float64Array): Int32Array {
  const out = new Int32Array(countMissing(values));
  let j = 0;
  for (let i = 0; i < values.length; i++) if (Number.isNaN(values[i])) out[j++] = i;
  return out;
}

/**
 * PyOD's labelling: the threshold is the (1 - contamination) percentile of the scores and rows strictly
 * above it are anomalies; unscored (NaN) rows are never labelled.
 */
export function labelByContamination(scores: Float64Array, contamination: number): Detection {
  const threshold = quantileSorted(sortedPresent(scores), 1 - contamination);
  return labelAbove(scores, threshold);
}

/** Labels the rows whose score is strictly above a fixed threshold. */
export function labelAbove(scores: Float64Array, threshold: number): Detection {
  const labels = new Uint8Array(scores.length);
  for (let i = 0; i < scores.length; i++) labels[i] = scores[i] > threshold ? 1 : 0;
  return { scores, labels, threshold };
}

/** Columns z-scored on their present values (a constant column stays centred at 0), NaN kept. */
export function standardize(columns: Float64Array[]): Float64Array[] {
  return columns.map((c) => {
    const m = mean(c);
    const s = std(c) || 1;
    return c.map((v) => (v - m) / s);
  });
}

/** Missing values replaced by the column median: how distance and tree methods see incomplete rows. */
export function fillMedian(columns: Float64Array[]): Float64Array[] {
  return columns.map((c) => {
    const m = median(c);
    const fill = Number.isNaN(m) ? 0 : m;
    return c.map((v) => (Number.isNaN(v) ? fill : v));
  });
}

/** Row-major copy of columns (n × d), the layout distance loops want. */
export function rowMajor(columns: Float64Array[]): Float64Array {
  const d = columns.length;
  const n = d ? columns[0].length : 0;
  const out = new Float64Array(n * d);
  for (let j = 0; j < d; j++) {
    const c = columns[j];
    for (let i = 0; i < n; i++) out[i * d + j] = c[i];
  }
  return out;
}
