/**
 * The split search of one feature over one tree node: the node's bins of the feature gathered once
 * (one random read per row), then a class histogram scanned for the best gini threshold (a sort for
 * small nodes), or one random threshold (extra trees).
 */
import type { Rng } from "../random.ts";
import type { Binned } from "./binning.ts";

export interface Split {
  feature: number;
  threshold: number;
  /** Σ_c left² / nLeft + Σ_c right² / nRight (larger is a purer split). */
  score: number;
  /** Class weights going left (a view into scratch: copy to keep). */
  left: Float64Array;
}

/** Buffers shared with the tree: the node rows' classes and weights, in the tree's order. */
export interface SplitScratch {
  hist: Float64Array;
  left: Float64Array;
  bestLeft: Float64Array;
  gathered: Uint8Array;
  keys: Int32Array;
  idx: Uint32Array;
  ys: Int32Array;
  ws: Float64Array;
}

/** Below this many rows, sorting a node's (bin, class) keys beats scanning a histogram of 255 bins. */
const SMALL_NODE = 48;

function gather(data: Binned, f: number, idx: Uint32Array, a: number, b: number, out: Uint8Array): void {
  const { bins } = data;
  const col = f * data.rows;
  for (let k = a; k < b; k++) out[k] = bins[col + idx[k]];
}

function score(left: Float64Array, nLeft: number, total: Float64Array, n: number): number {
  let l = 0, r = 0;
  for (let c = 0; c < total.length; c++) {
    l += left[c] * left[c];
    r += (total[c] - left[c]) ** 2;
  }
  return l / nLeft + r / (n - nLeft);
}

/** The better of `best` and the split at `bin` (whose left counts are in `s.left`, copied if kept). */
function better(best: Split | null, f: number, bin: number, sc: number, s: SplitScratch): Split | null {
  if (best && sc <= best.score) return best;
  s.bestLeft.set(s.left);
  return { feature: f, threshold: bin, score: sc, left: s.bestLeft };
}

/** Best threshold of one feature; undefined when the feature is constant in the node. */
export function histogramSplit(
  data: Binned,
  f: number,
  a: number,
  b: number,
  total: Float64Array,
  n: number,
  s: SplitScratch,
): Split | null | undefined {
  gather(data, f, s.idx, a, b, s.gathered);
  if (b - a <= SMALL_NODE) return sortedSplit(f, a, b, total, n, s);
  const C = total.length;
  const { hist, left, gathered: g, ys, ws } = s;
  let lo = 255, hi = 0;
  for (let k = a; k < b; k++) {
    const bin = g[k];
    hist[bin * C + ys[k]] += ws[k];
    if (bin < lo) lo = bin;
    if (bin > hi) hi = bin;
  }
  if (lo === hi) {
    hist.fill(0, lo * C, lo * C + C);
    return undefined;
  }
  left.fill(0);
  let nLeft = 0;
  let best: Split | null = null;
  for (let bin = lo; bin < hi; bin++) {
    let inBin = 0;
    for (let c = 0; c < C; c++) {
      const h = hist[bin * C + c];
      left[c] += h;
      inBin += h;
    }
    if (inBin === 0) continue; // the same partition as the bin before
    nLeft += inBin;
    best = better(best, f, bin, score(left, nLeft, total, n), s);
  }
  hist.fill(0, lo * C, (hi + 1) * C);
  return best;
}

/** The small-node search: rows sorted by (bin, class), the weight found through the row's position. */
function sortedSplit(
  f: number,
  a: number,
  b: number,
  total: Float64Array,
  n: number,
  s: SplitScratch,
): Split | null | undefined {
  const C = total.length;
  const { keys, gathered: g, ys, ws, left } = s;
  const m = b - a;
  for (let k = 0; k < m; k++) {
    const key = ((g[a + k] * C + ys[a + k]) << 6) | k;
    let j = k - 1;
    while (j >= 0 && keys[j] > key) keys[j + 1] = keys[j--];
    keys[j + 1] = key;
  }
  const binOf = (key: number) => Math.floor((key >> 6) / C);
  if (binOf(keys[0]) === binOf(keys[m - 1])) return undefined;
  left.fill(0);
  let nLeft = 0;
  let best: Split | null = null;
  for (let k = 0; k < m - 1; k++) {
    const key = keys[k];
    const w = ws[a + (key & 63)];
    left[(key >> 6) % C] += w;
    nLeft += w;
    const bin = binOf(key);
    if (bin === binOf(keys[k + 1])) continue;
    best = better(best, f, bin, score(left, nLeft, total, n), s);
  }
  return best;
}

/**
 * One threshold drawn uniformly between the feature's smallest and largest value in the node (as
 * scikit-learn's extra trees draw it), mapped to the bin boundary below it; undefined when constant.
 */
export function randomSplit(
  data: Binned,
  f: number,
  a: number,
  b: number,
  total: Float64Array,
  n: number,
  rng: Rng,
  s: SplitScratch,
): Split | null | undefined {
  const { gathered: g, ys, ws, left } = s;
  gather(data, f, s.idx, a, b, g);
  let lo = 255, hi = 0;
  for (let k = a; k < b; k++) {
    const bin = g[k];
    if (bin < lo) lo = bin;
    if (bin > hi) hi = bin;
  }
  if (lo === hi) return undefined;
  const edges = data.edges[f];
  const from = lo === 0 ? data.low[f] : edges[lo - 1];
  const to = hi === edges.length ? data.high[f] : edges[hi];
  const u = from + rng.next() * (to - from);
  // Bins up to the last edge below u go left, kept inside [lo, hi - 1] so both sides have rows.
  let t = lo;
  while (t < hi - 1 && edges[t] < u) t++;
  left.fill(0);
  let nLeft = 0;
  for (let k = a; k < b; k++) {
    if (g[k] <= t) {
      left[ys[k]] += ws[k];
      nLeft += ws[k];
    }
  }
  return { feature: f, threshold: t, score: score(left, nLeft, total, n), left };
}
