/**
 * The split search of one feature over one tree node: the node's bins of the feature gathered once
 * (one random read per row), then the best gini threshold from a class histogram over the node's bin
 * range, or, when that range is much wider than the node, from the rows sorted by bin (exact, as
 * scikit-learn) up to COARSE_ABOVE rows and from a histogram of the 255 coarse bins above that (as
 * LightGBM: quantile thresholds where a node is big enough for them to be close); extra trees draw
 * one random threshold instead.
 */
import type { Rng } from "../random.ts";
import type { Binned } from "./binning.ts";
import type { TrainSet } from "./tree.ts";

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
  gathered: Uint16Array;
  keys: Float64Array;
  idx: Uint32Array;
  ys: Int32Array;
  ws: Float64Array;
}

/** A histogram pays when the node's bin range is at most this many times its row count. */
const RANGE_PER_ROW = 4;
/** Below this many rows an insertion sort beats the native one. */
const INSERTION = 32;
const POS = 65536;
/** Nodes with more rows than this search the coarse bins when the fine ones would need a sort. */
const COARSE_ABOVE = 2048;

/** The node's bins of feature f into `out[a..b)`, and their smallest and largest. */
function gather(data: Binned, f: number, s: SplitScratch, a: number, b: number): [number, number] {
  const { bins } = data;
  const { idx, gathered: out } = s;
  const col = f * data.rows;
  let lo = 65535, hi = 0;
  for (let k = a; k < b; k++) {
    const bin = bins[col + idx[k]];
    out[k] = bin;
    if (bin < lo) lo = bin;
    if (bin > hi) hi = bin;
  }
  return [lo, hi];
}

function score(left: Float64Array, nLeft: number, total: Float64Array, n: number): number {
  let l = 0, r = 0;
  for (let c = 0; c < total.length; c++) {
    l += left[c] * left[c];
    r += (total[c] - left[c]) ** 2;
  }
  return l / nLeft + r / (n - nLeft);
}

/**
 * The last bin on the left of a split between the node's neighbouring bins `prev` and `next`: bins in
 * between (empty here, not in other folds) go to the side of the midpoint of the two values, as
 * scikit-learn's threshold (prev + next) / 2 sends them.
 */
function between(centres: Float64Array, prev: number, next: number): number {
  const mid = (centres[prev] + centres[next]) / 2;
  let l = prev, r = next - 1;
  while (l < r) {
    const m = (l + r + 1) >> 1;
    if (centres[m] <= mid) l = m;
    else r = m - 1;
  }
  return l;
}

/** The better of `best` and the split between bins prev | next (left counts in `s.left`, copied if kept). */
function better(
  best: Split | null,
  data: Binned,
  f: number,
  prev: number,
  next: number,
  sc: number,
  s: SplitScratch,
): Split | null {
  if (best && sc <= best.score) return best;
  s.bestLeft.set(s.left);
  return { feature: f, threshold: between(data.centres[f], prev, next), score: sc, left: s.bestLeft };
}

/** Best threshold of one feature; undefined when the feature is constant in the node. */
export function bestThreshold(
  set: TrainSet,
  f: number,
  a: number,
  b: number,
  total: Float64Array,
  n: number,
  s: SplitScratch,
): Split | null | undefined {
  const { data, coarse } = set;
  const [lo, hi] = gather(data, f, s, a, b);
  if (lo === hi) return undefined;
  const m = b - a;
  if (hi - lo <= RANGE_PER_ROW * m) return histogramSplit(data, f, a, b, lo, hi, total, n, s);
  if (m <= COARSE_ABOVE) return sortedSplit(data, f, a, b, total, n, s);
  const [clo, chi] = gather(coarse, f, s, a, b);
  const split = histogramSplit(coarse, f, a, b, clo, chi, total, n, s);
  if (split) split.threshold = coarse.ends![f][split.threshold]; // the last fine bin of the coarse one
  return split;
}

function histogramSplit(
  data: Binned,
  f: number,
  a: number,
  b: number,
  lo: number,
  hi: number,
  total: Float64Array,
  n: number,
  s: SplitScratch,
): Split | null {
  const C = total.length;
  const { hist, left, gathered: g, ys, ws } = s;
  const base = lo * C;
  for (let k = a; k < b; k++) hist[g[k] * C + ys[k] - base] += ws[k];
  left.fill(0);
  let nLeft = 0;
  let best: Split | null = null;
  let prev = -1;
  for (let bin = lo; bin <= hi; bin++) {
    let inBin = 0;
    for (let c = 0; c < C; c++) inBin += hist[bin * C + c - base];
    if (inBin === 0) continue;
    if (prev >= 0) best = better(best, data, f, prev, bin, score(left, nLeft, total, n), s);
    for (let c = 0; c < C; c++) left[c] += hist[bin * C + c - base];
    nLeft += inBin;
    prev = bin;
  }
  hist.fill(0, 0, (hi - lo + 1) * C);
  return best;
}

/** The node's rows sorted by (bin, class), each key carrying its position for the row's weight. */
function sortedSplit(
  data: Binned<Uint16Array>,
  f: number,
  a: number,
  b: number,
  total: Float64Array,
  n: number,
  s: SplitScratch,
): Split | null {
  const C = total.length;
  const { gathered: g, ys, ws, left } = s;
  const m = b - a;
  const keys = s.keys.subarray(0, m);
  for (let k = 0; k < m; k++) {
    const key = (g[a + k] * C + ys[a + k]) * POS + k;
    if (m > INSERTION) keys[k] = key;
    else {
      let j = k - 1;
      while (j >= 0 && keys[j] > key) keys[j + 1] = keys[j--];
      keys[j + 1] = key;
    }
  }
  if (m > INSERTION) keys.sort();
  left.fill(0);
  let nLeft = 0;
  let best: Split | null = null;
  let next = Math.floor(keys[0] / POS);
  for (let k = 0; k < m - 1; k++) {
    const binClass = next;
    next = Math.floor(keys[k + 1] / POS);
    const w = ws[a + (keys[k] % POS)];
    left[binClass % C] += w;
    nLeft += w;
    const bin = Math.floor(binClass / C), nextBin = Math.floor(next / C);
    if (bin === nextBin) continue;
    best = better(best, data, f, bin, nextBin, score(left, nLeft, total, n), s);
  }
  return best;
}

/**
 * One threshold drawn uniformly between the feature's smallest and largest value in the node (as
 * scikit-learn's extra trees draw it), mapped to the bin boundary below it; undefined when constant.
 */
export function randomThreshold(
  data: Binned<Uint16Array>,
  f: number,
  a: number,
  b: number,
  total: Float64Array,
  n: number,
  rng: Rng,
  s: SplitScratch,
): Split | null | undefined {
  const [lo, hi] = gather(data, f, s, a, b);
  if (lo === hi) return undefined;
  const { gathered: g, ys, ws, left } = s;
  const centres = data.centres[f];
  const u = centres[lo] + rng.next() * (centres[hi] - centres[lo]);
  // Bins whose value is at most u go left; the last bin always goes right, so both sides have rows.
  let l = lo, r = hi - 1;
  while (l < r) {
    const m = (l + r + 1) >> 1;
    if (centres[m] <= u) l = m;
    else r = m - 1;
  }
  const t = l;
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
