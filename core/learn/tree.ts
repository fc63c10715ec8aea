/**
 * CART classification trees on binned features (gini, grown until pure, as scikit-learn's defaults):
 * one tree of `Decision Tree Classifier`, and the trees of the two forests. A split search over a
 * node gathers the node's bins of a feature once, then builds a class histogram (small nodes sort
 * instead); extra trees draw one random threshold per feature. Trees here are only ever evaluated,
 * never kept: the rows to predict follow the splits down alongside the training rows, and each leaf
 * adds its class shares to them.
 */
import type { Rng } from "../random.ts";
import type { Binned } from "./binning.ts";
import { bestThreshold, randomThreshold, type Split, type SplitScratch } from "./split_search.ts";

/** Training data: binned features and the class of every row. */
export interface TrainSet {
  data: Binned<Uint16Array>;
  /** The same features in 255 bins made of whole fine ones, for the split search of big nodes. */
  coarse: Binned<Uint8Array>;
  y: Int32Array;
  classes: number;
}

export interface TreeOptions {
  /** Features whose splits are compared at a node (at least, if some of them are constant there). */
  maxFeatures: number;
  /** Extra trees: one uniformly drawn threshold per feature instead of the best one. */
  randomThresholds: boolean;
}

/** The rows a tree learns from: distinct rows and their weights (bootstrap counts; 1 otherwise). */
export interface Sample {
  idx: Uint32Array;
  w: Float64Array;
}

/** Reusable buffers of a tree's growth, sized for the data. */
export class TreeScratch implements SplitScratch {
  readonly hist: Float64Array;
  readonly left: Float64Array;
  readonly bestLeft: Float64Array;
  readonly features: Int32Array;
  readonly gathered: Uint16Array;
  readonly keys: Float64Array;
  idx: Uint32Array = new Uint32Array(0);
  ys: Int32Array = new Int32Array(0);
  ws: Float64Array = new Float64Array(0);

  constructor(set: TrainSet) {
    let bins = 0;
    for (const c of set.data.binCount) bins = Math.max(bins, c);
    this.hist = new Float64Array(bins * set.classes);
    this.left = new Float64Array(set.classes);
    this.bestLeft = new Float64Array(set.classes);
    this.features = Int32Array.from({ length: set.data.features }, (_, f) => f);
    this.gathered = new Uint16Array(set.data.rows);
    this.keys = new Float64Array(set.data.rows);
  }
}

/** Σ_c count² / n: gini's split criterion maximises this summed over both sides. */
export function sideScore(counts: Float64Array, n: number): number {
  let s = 0;
  for (let c = 0; c < counts.length; c++) s += counts[c] * counts[c];
  return s / n;
}

/**
 * Grows one tree on `sample` and adds, to `proba[evalPos[i] * classes + c]`, the class shares of the
 * leaf each row `evalIdx[i]` lands in, and each split's weighted gini decrease to `importance`.
 * The sample and evaluation arrays are reordered in place.
 */
export function growTree(
  set: TrainSet,
  sample: Sample,
  evalIdx: Uint32Array,
  evalPos: Uint32Array,
  proba: Float64Array,
  importance: Float64Array,
  opts: TreeOptions,
  rng: Rng,
  s: TreeScratch,
): void {
  const C = set.classes;
  const { bins, rows: N } = set.data;
  const { idx } = sample;
  const ys = s.ys = Int32Array.from(idx, (r) => set.y[r]);
  const ws = s.ws = sample.w;
  s.idx = idx;
  // Nodes to grow: training range [a, b), evaluation range [ea, eb), and class totals (C per node).
  const ranges: number[] = [0, idx.length, 0, evalIdx.length];
  let totals = new Float64Array(C * 64);
  for (let k = 0; k < idx.length; k++) totals[ys[k]] += ws[k];
  let depth = 1;
  const total = new Float64Array(C);
  while (depth > 0) {
    depth--;
    const eb = ranges.pop()!, ea = ranges.pop()!, b = ranges.pop()!, a = ranges.pop()!;
    total.set(totals.subarray(depth * C, depth * C + C));
    let n = 0, classesPresent = 0;
    for (let c = 0; c < C; c++) {
      n += total[c];
      if (total[c] > 0) classesPresent++;
    }
    const split = classesPresent > 1 && b - a > 1 ? bestSplit(set, a, b, total, n, opts, rng, s) : null;
    if (!split) {
      for (let e = ea; e < eb; e++) {
        const o = evalPos[e] * C;
        for (let c = 0; c < C; c++) proba[o + c] += total[c] / n;
      }
      continue;
    }
    importance[split.feature] += split.score - sideScore(total, n);
    const col = split.feature * N;
    const t = split.threshold;
    let i = a, j = b - 1;
    while (i <= j) {
      if (bins[col + idx[i]] <= t) i++;
      else {
        const r = idx[i], c = ys[i], w = ws[i];
        idx[i] = idx[j], ys[i] = ys[j], ws[i] = ws[j];
        idx[j] = r, ys[j] = c, ws[j] = w;
        j--;
      }
    }
    let ei = ea, ej = eb - 1;
    while (ei <= ej) {
      if (bins[col + evalIdx[ei]] <= t) ei++;
      else {
        const r = evalIdx[ei], p = evalPos[ei];
        evalIdx[ei] = evalIdx[ej], evalPos[ei] = evalPos[ej];
        evalIdx[ej] = r, evalPos[ej] = p;
        ej--;
      }
    }
    if ((depth + 2) * C > totals.length) {
      const grown = new Float64Array(totals.length * 2);
      grown.set(totals);
      totals = grown;
    }
    for (let c = 0; c < C; c++) {
      totals[depth * C + c] = total[c] - split.left[c];
      totals[(depth + 1) * C + c] = split.left[c];
    }
    // The left child is on top of the stack: depth first, left first.
    ranges.push(i, b, ei, eb, a, i, ea, ei);
    depth += 2;
  }
}

/** The best split of a node over up to `maxFeatures` non-constant features drawn at random, or null. */
function bestSplit(
  set: TrainSet,
  a: number,
  b: number,
  total: Float64Array,
  n: number,
  opts: TreeOptions,
  rng: Rng,
  s: TreeScratch,
): Split | null {
  const { features } = s;
  const p = features.length;
  let best: Split | null = null;
  let visited = 0;
  // scikit-learn keeps drawing past max_features while the drawn ones are constant in the node.
  for (let i = 0; i < p && visited < opts.maxFeatures; i++) {
    const j = i + rng.int(p - i);
    const f = features[j];
    features[j] = features[i];
    features[i] = f;
    const cand = opts.randomThresholds
      ? randomThreshold(set.data, f, a, b, total, n, rng, s)
      : bestThreshold(set, f, a, b, total, n, s);
    if (cand === undefined) continue; // constant here
    visited++;
    if (cand && (!best || cand.score > best.score)) best = { ...cand, left: cand.left.slice() };
  }
  return best;
}
