/**
 * Tabular anomaly detection as PyOD scores it (higher = more anomalous) over numeric columns. The
 * PyOD-style detectors label by `contamination` (the top fraction of scores); z-score and IQR label by
 * their own thresholds. Multivariate detectors see a missing cell as its column's median; z-score and
 * IQR judge each present cell on its own.
 */
import {
  type Detection,
  fillMedian,
  labelAbove,
  labelByContamination,
  mean,
  quantileSorted,
  rowMajor,
  sortedPresent,
  standardize,
  std,
} from "./stats.ts";
import { allKnn } from "./kd_tree.ts";

/** The largest per-cell score of each row, ignoring missing cells (NaN when the row has none). */
function rowMax(columns: Float64Array[], cell: (j: number, v: number) => number): Float64Array {
  const n = columns.length ? columns[0].length : 0;
  const out = new Float64Array(n).fill(NaN);
  columns.forEach((c, j) => {
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(c[i])) continue;
      const s = cell(j, c[i]);
      if (!(out[i] >= s)) out[i] = s;
    }
  });
  return out;
}

/** Z-score: a row is anomalous when any cell lies more than `threshold` standard deviations from its mean. */
export function detectZscore(columns: Float64Array[], threshold = 3): Detection {
  const mu = columns.map(mean), sd = columns.map((c) => std(c) || 1);
  return labelAbove(rowMax(columns, (j, v) => Math.abs(v - mu[j]) / sd[j]), threshold);
}

/** Tukey's fences: any cell beyond k IQRs outside the quartiles (score: the largest such distance, in IQRs). */
export function detectIqrTabular(columns: Float64Array[], k = 1.5): Detection {
  const q = columns.map((c) => {
    const s = sortedPresent(c);
    const q1 = quantileSorted(s, 0.25), q3 = quantileSorted(s, 0.75);
    return [q1, q3, q3 - q1 || 1e-12 * Math.max(1, Math.abs(q1))];
  });
  return labelAbove(rowMax(columns, (j, v) => Math.max(q[j][0] - v, v - q[j][1], 0) / q[j][2]), k);
}

/** numpy's histogram edges: `bins` equal widths over [min, max] (±0.5 when the column is constant). */
function edgesOf(c: Float64Array, bins: number): Float64Array {
  let lo = Infinity, hi = -Infinity;
  for (const v of c) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo === hi) [lo, hi] = [lo - 0.5, hi + 0.5];
  return Float64Array.from({ length: bins + 1 }, (_, i) => lo + (hi - lo) * i / bins);
}

/**
 * HBOS: one equal-width histogram per column, a row scored by −Σ log2(density + α) over its cells
 * (PyOD's static variant, α = 0.1, tol = 0.5 for cells just beyond the edges).
 */
export function detectHbos(columns: Float64Array[], nBins = 10, contamination = 0.1): Detection {
  const cols = fillMedian(columns);
  const n = cols.length ? cols[0].length : 0;
  const scores = new Float64Array(n);
  for (const c of cols) {
    const e = edgesOf(c, nBins);
    const width = e[1] - e[0];
    const counts = new Float64Array(nBins);
    for (const v of c) counts[Math.min(nBins - 1, Math.floor((v - e[0]) / width))]++;
    const logDensity = counts.map((k) => Math.log2(k / (n * width) + 0.1));
    const floor = Math.min(...logDensity);
    for (let i = 0; i < n; i++) {
      const v = c[i];
      let bin = Math.ceil((v - e[0]) / width) - 1; // np.digitize(right=True): (e[b], e[b+1]] is bin b
      if (v <= e[0]) bin = e[0] - v <= width * 0.5 ? 0 : -1;
      else if (bin >= nBins) bin = v - e[nBins] <= width * 0.5 ? nBins - 1 : -1;
      scores[i] -= bin < 0 ? floor : logDensity[bin];
    }
  }
  return labelByContamination(scores, contamination);
}

/** The empirical CDF of a column at each of its values (ties share the highest rank), as PyOD's ECDF. */
function ecdf(c: Float64Array, sign: 1 | -1): Float64Array {
  const n = c.length;
  const order = Array.from(c.keys()).sort((a, b) => sign * (c[a] - c[b]));
  const out = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    const same = i < n - 1 && c[order[i]] === c[order[i + 1]];
    out[order[i]] = same ? out[order[i + 1]] : (i + 1) / n;
  }
  return out;
}

/** ECOD: per column, −log of the tail probability on the side the column's skew points to; summed over columns. */
export function detectEcod(columns: Float64Array[], contamination = 0.1): Detection {
  const cols = fillMedian(columns);
  const n = cols.length ? cols[0].length : 0;
  const scores = new Float64Array(n);
  for (const c of cols) {
    const left = ecdf(c, 1), right = ecdf(c, -1);
    const mu = mean(c);
    let m3 = 0;
    for (const v of c) m3 += (v - mu) ** 3;
    const skew = Math.sign(m3);
    for (let i = 0; i < n; i++) {
      const ul = -Math.log(left[i]), ur = -Math.log(right[i]);
      const uSkew = skew < 0 ? ul : skew > 0 ? ur : ul + ur;
      scores[i] += Math.max(ul, ur, uSkew);
    }
  }
  return labelByContamination(scores, contamination);
}

/** The matrix distance detectors use: median-filled, optionally z-scored columns, row-major. */
function distanceMatrix(columns: Float64Array[], scale: boolean): Float64Array {
  const filled = fillMedian(columns);
  return rowMajor(scale ? standardize(filled) : filled);
}

/** KNN (PyOD method "largest"): the distance to the k-th nearest other row. */
export function detectKnn(columns: Float64Array[], k = 5, contamination = 0.1, scale = true): Detection {
  const d = columns.length;
  const nn = allKnn(distanceMatrix(columns, scale), d, k);
  const n = d ? columns[0].length : 0, kk = n ? nn.dist.length / n : 0;
  const scores = Float64Array.from({ length: n }, (_, i) => (kk ? nn.dist[i * kk + kk - 1] : 0));
  return labelByContamination(scores, contamination);
}

/**
 * LOF (Breunig et al., as sklearn): the mean local reachability density of a row's k neighbours over
 * its own; about 1 inside a cluster, well above 1 for a row in a sparser place than its neighbours.
 */
export function detectLof(columns: Float64Array[], k = 20, contamination = 0.1, scale = true): Detection {
  const d = columns.length;
  const { ids, dist } = allKnn(distanceMatrix(columns, scale), d, k);
  const n = d ? columns[0].length : 0, kk = n ? dist.length / n : 0;
  if (!kk) return labelByContamination(new Float64Array(n).fill(1), contamination);
  const kDist = Float64Array.from({ length: n }, (_, i) => dist[i * kk + kk - 1]);
  const lrd = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let t = 0; t < kk; t++) s += Math.max(kDist[ids[i * kk + t]], dist[i * kk + t]);
    lrd[i] = 1 / (s / kk + 1e-10);
  }
  const scores = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let t = 0; t < kk; t++) s += lrd[ids[i * kk + t]];
    scores[i] = s / kk / lrd[i];
  }
  return labelByContamination(scores, contamination);
}
