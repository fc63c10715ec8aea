/**
 * CART classification trees on binned features (gini, grown until pure, as scikit-learn's defaults):
 * one tree of `Decision Tree Classifier`, and the trees of the two forests. The node rows are kept
 * in node order, bins and all (core/learn/tree_split_wasm.ts), so a node is one block of memory; a split search
 * over a node gathers its bins of a feature once, then builds a class histogram (small nodes sort
 * instead); extra trees draw one random threshold per feature. Trees here are only ever evaluated,
 * never kept: the rows to predict follow the splits down alongside the training rows, and each leaf
 * adds its class shares to them.
 */
import type { Rng } from "../random.ts";
import { type Binned, rowMajor } from "./binning.ts";
import { CONSTANT, FOUND, NodeSearch } from "./tree_split_search.ts";
import { SplitArena } from "./tree_split_wasm.ts";

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
  /**
   * Only predictions are wanted (a cross-validation fold): a node no row to predict reaches becomes a
   * leaf, since nothing below it can change an answer. The predictions are those of the full tree;
   * only the importances (and the random draws the skipped nodes would have used) differ.
   */
  predictionsOnly?: boolean;
}

/**
 * The rows a tree learns from: distinct positions in the training split (ascending) and their
 * weights (bootstrap counts; 1 otherwise).
 */
export interface Sample {
  idx: Uint32Array;
  w: Float64Array;
  /** False when every weight is 1: the weights then need not move with the rows. */
  weighted: boolean;
}

/**
 * Reusable buffers of the trees grown on one training split and scored on one set of rows to predict
 * (`evalRows`): the row-major bins of both, their node rows in WebAssembly memory, the node search
 * and the best split so far.
 */
export class TreeScratch {
  readonly search: NodeSearch;
  /** The node rows in WebAssembly memory. */
  readonly arena: SplitArena;
  readonly features: Int32Array;
  readonly bestLeft: Float64Array;
  readonly rng = new NodeRng();
  bestPrev = 0;
  bestNext = 0;
  bestInCoarse = false;
  bestScore = 0;
  bestFeature = -1;
  bestThreshold = 0;

  /** The class of each row of the training split, by position. */
  readonly y: Int32Array;

  constructor(set: TrainSet, train: Uint32Array, evalRows: Uint32Array) {
    const histBins = Math.max(...set.data.binCount, 0);
    this.arena = new SplitArena(train.length, evalRows.length, set.data.features, 5, histBins);
    rowMajor(set.data, train, this.arena.fine);
    rowMajor(set.coarse, train, this.arena.coarse);
    rowMajor(set.data, evalRows, this.arena.evalFine);
    this.y = Int32Array.from(train, (r) => set.y[r]);
    this.search = new NodeSearch(set.data, set.coarse, set.classes, this.arena);
    this.features = Int32Array.from({ length: set.data.features }, (_, f) => f);
    this.bestLeft = new Float64Array(set.classes);
  }
}

/** Σ_c count² / n: gini's split criterion maximises this summed over both sides. */
export function sideScore(counts: Float64Array, n: number): number {
  let s = 0;
  for (let c = 0; c < counts.length; c++) s += counts[c] * counts[c];
  return s / n;
}

/**
 * Grows one tree on `sample` and adds, to `proba[i * classes + c]`, the class shares of the leaf
 * each row the scratch predicts (`evalRows[i]`) lands in, and each split's weighted gini decrease to
 * `importance`.
 */
export function growTree(
  set: TrainSet,
  sample: Sample,
  proba: Float64Array,
  importance: Float64Array,
  opts: TreeOptions,
  rng: Rng,
  s: TreeScratch,
): void {
  const C = set.classes;
  const { search, arena } = s;
  if (!arena.current) {
    throw new Error("a TreeScratch is used after a newer one took the WebAssembly memory");
  }
  const m = sample.idx.length;
  arena.fillRows(sample.idx, sample.w);
  const { idx, ys, evalIdx } = arena;
  for (let k = 0; k < m; k++) ys[k] = s.y[idx[k]];
  const ws = search.ws = arena.ws;
  search.idx = idx;
  search.weighted = sample.weighted;
  const total = search.total;
  // Nodes to grow: training range [a, b), evaluation range [ea, eb), class totals (C per node, in
  // `totals`), and each node's own seed: a node's draws depend on its place in the tree only, so a
  // subtree not grown (predictionsOnly) changes nothing elsewhere.
  const ranges: number[] = [0, m, 0, evalIdx.length, rng.uint32()];
  let totals = new Float64Array(C * 64);
  for (let k = 0; k < m; k++) totals[ys[k]] += ws[k];
  let depth = 1;
  while (depth > 0) {
    depth--;
    const seed = ranges.pop()!, eb = ranges.pop()!, ea = ranges.pop()!, b = ranges.pop()!, a = ranges.pop()!;
    let n = 0, classesPresent = 0;
    for (let c = 0; c < C; c++) {
      const t = totals[depth * C + c];
      total[c] = t;
      n += t;
      if (t > 0) classesPresent++;
    }
    search.n = n;
    const pruned = opts.predictionsOnly && ea === eb;
    if (pruned || classesPresent < 2 || b - a < 2 || !bestSplit(a, b, opts, s.rng.reseed(seed), s)) {
      for (let e = ea; e < eb; e++) {
        const o = evalIdx[e] * C;
        for (let c = 0; c < C; c++) proba[o + c] += total[c] / n;
      }
      continue;
    }
    importance[s.bestFeature] += s.bestScore - sideScore(total, n);
    // Both sides by the fine bins (a coarse threshold's fine one is its last: the same rows go left).
    const i = arena.partition(s.bestFeature, s.bestThreshold, a, b, false, sample.weighted);
    const ei = arena.partition(s.bestFeature, s.bestThreshold, ea, eb, true, false);
    if ((depth + 2) * C > totals.length) {
      const grown = new Float64Array(totals.length * 2);
      grown.set(totals);
      totals = grown;
    }
    for (let c = 0; c < C; c++) {
      totals[depth * C + c] = total[c] - s.bestLeft[c];
      totals[(depth + 1) * C + c] = s.bestLeft[c];
    }
    // The left child is on top of the stack: depth first, left first.
    ranges.push(i, b, ei, eb, childSeed(seed, 2), a, i, ea, ei, childSeed(seed, 1));
    depth += 2;
  }
}

/**
 * A node's random draws (feature order, extra-trees thresholds): splitmix32 from the node's seed,
 * reseeded in place, because a tree has tens of thousands of nodes and each needs its own stream.
 */
class NodeRng {
  private s = 0;
  reseed(seed: number): this {
    this.s = seed >>> 0;
    return this;
  }
  private next32(): number {
    let z = (this.s = (this.s + 0x9e3779b9) >>> 0);
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  }
  /** A uniform double in [0, 1) with 53 random bits. */
  next(): number {
    return ((this.next32() >>> 5) * 67108864 + (this.next32() >>> 6)) / 9007199254740992;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

/** Swaps a feature drawn from positions i.. into position i (a partial Fisher-Yates shuffle). */
function drawFeature(features: Int32Array, i: number, rng: NodeRng): void {
  const j = i + rng.int(features.length - i);
  const f = features[j];
  features[j] = features[i];
  features[i] = f;
}

/** A child node's seed from its parent's (murmur3's finaliser over seed and side). */
function childSeed(seed: number, side: number): number {
  let h = (seed ^ Math.imul(side, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The best split of a node over up to `maxFeatures` non-constant features drawn at random, into the
 * scratch's best fields; false when there is none.
 */
function bestSplit(a: number, b: number, opts: TreeOptions, rng: NodeRng, s: TreeScratch): boolean {
  const { features, search } = s;
  const p = features.length;
  if (search.C === 2) s.arena.node(search.total[0], search.total[1], search.n);
  for (let f = 0; f < p; f++) features[f] = f; // the draw depends on this node's seed alone
  s.bestFeature = -1;
  let visited = 0;
  // Extra trees draw their first max_features features up front, to gather them four at a time.
  const ahead = opts.randomThresholds ? Math.min(opts.maxFeatures, p) : 0;
  for (let i = 0; i < ahead; i++) drawFeature(features, i, rng);
  // scikit-learn keeps drawing past max_features while the drawn ones are constant in the node.
  for (let i = 0; i < p && visited < opts.maxFeatures; i++) {
    if (i >= ahead) drawFeature(features, i, rng);
    const f = features[i];
    let found: number;
    if (i < ahead) {
      if (i % 4 === 0) search.gatherFour(features, i, Math.min(4, ahead - i), a, b);
      found = search.randomGathered(i % 4, f, a, b, rng);
    } else found = opts.randomThresholds ? search.random(f, a, b, rng) : search.exact(f, a, b);
    if (found === CONSTANT) continue;
    visited++;
    if (found === FOUND && (s.bestFeature < 0 || search.score > s.bestScore)) {
      s.bestFeature = f;
      s.bestScore = search.score;
      s.bestThreshold = search.threshold; // extra trees; exact searches resolve below
      s.bestPrev = search.prev;
      s.bestNext = search.next;
      s.bestInCoarse = search.inCoarse;
      s.bestLeft.set(search.left);
    }
  }
  if (s.bestFeature >= 0 && !opts.randomThresholds) {
    s.bestThreshold = search.fineThreshold(s.bestFeature, s.bestPrev, s.bestNext, s.bestInCoarse);
  }
  return s.bestFeature >= 0;
}
