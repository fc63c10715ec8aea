/**
 * Histogram gradient boosting with leaf-wise growth and LightGBM's defaults (num_leaves 31,
 * learning_rate 0.1, 100 rounds, min_child_samples 20, min_child_weight 1e-3, no regularisation,
 * boost from the average for two classes): binary log-loss, softmax with one tree per class and
 * round for more. Each round grows the leaf with the largest gain next; a child's histogram is the
 * parent's minus its sibling's, so only the smaller child is scanned. Importance is the total gain
 * of each feature's splits.
 */
import type { Evaluation } from "./forest.ts";
import { type Binned, rowMajor } from "./binning.ts";
import { partitionPositions } from "./partition.ts";

/** Boosting data: 255-bin features and the class of every row. */
export interface BoostSet {
  data: Binned<Uint8Array>;
  y: Int32Array;
  classes: number;
}

/** LightGBM's defaults (LGBMClassifier), which PyCaret used unchanged. */
export const GBM_DEFAULTS = {
  numLeaves: 31,
  learningRate: 0.1,
  rounds: 100,
  minDataInLeaf: 20,
  minSumHessian: 1e-3,
  lambda: 0,
};
export type GbmOptions = typeof GBM_DEFAULTS;

interface Leaf {
  a: number;
  b: number;
  ea: number;
  eb: number;
  g: number;
  h: number;
  hist: Float64Array;
  gain: number;
  feature: number;
  threshold: number;
}

/** Where each feature's bins start in a leaf histogram of (gradient, hessian, count) triples. */
function offsets(set: BoostSet): Int32Array {
  const off = new Int32Array(set.data.features + 1);
  for (let f = 0; f < set.data.features; f++) off[f + 1] = off[f] + set.data.binCount[f];
  return off;
}

/**
 * Boosts on `train` rows and scores `evalRows` (class shares), with gain importances, because the
 * comparison needs held-out predictions only.
 */
export function evaluateBoosting(
  set: BoostSet,
  train: Uint32Array,
  evalRows: Uint32Array,
  opts: GbmOptions = GBM_DEFAULTS,
): Evaluation {
  const C = set.classes;
  const K = C === 2 ? 1 : C; // outputs: one log-odds, or one score per class
  const n = train.length;
  const score = new Float64Array(n * K);
  const evalScore = new Float64Array(evalRows.length * K);
  const y = Int32Array.from(train, (r) => set.y[r]);
  if (K === 1) {
    let pos = 0;
    for (let i = 0; i < n; i++) pos += y[i];
    const init = Math.log(pos / (n - pos));
    score.fill(init);
    evalScore.fill(init);
  }
  const grad = new Float64Array(n * K);
  const hess = new Float64Array(n * K);
  const importance = new Float64Array(set.data.features);
  const grower = new LeafWise(set, train, evalRows, opts);
  const p = new Float64Array(K);
  for (let round = 0; round < opts.rounds; round++) {
    // Every output's gradients from the scores at the start of the round, then one tree per output.
    for (let i = 0; i < n; i++) {
      if (K === 1) {
        const q = 1 / (1 + Math.exp(-score[i]));
        grad[i] = q - y[i];
        hess[i] = q * (1 - q);
        continue;
      }
      softmax(score, i * K, K, p);
      for (let k = 0; k < K; k++) {
        grad[k * n + i] = p[k] - (y[i] === k ? 1 : 0);
        hess[k * n + i] = (K / (K - 1)) * p[k] * (1 - p[k]); // LightGBM's multiclass factor
      }
    }
    for (let k = 0; k < K; k++) {
      grower.grow(
        grad.subarray(k * n, (k + 1) * n),
        hess.subarray(k * n, (k + 1) * n),
        importance,
        score,
        evalScore,
        k,
        K,
      );
    }
  }
  const proba = new Float64Array(evalRows.length * C);
  for (let e = 0; e < evalRows.length; e++) {
    if (K === 1) {
      const q = 1 / (1 + Math.exp(-evalScore[e]));
      proba[2 * e] = 1 - q;
      proba[2 * e + 1] = q;
    } else softmax(evalScore, e * K, K, proba.subarray(e * C, e * C + C));
  }
  let total = 0;
  for (const v of importance) total += v;
  if (total > 0) { for (let f = 0; f < importance.length; f++) importance[f] /= total; }
  return { proba, importance };
}

function softmax(score: Float64Array, at: number, K: number, out: Float64Array): void {
  let max = -Infinity;
  for (let k = 0; k < K; k++) max = Math.max(max, score[at + k]);
  let sum = 0;
  for (let k = 0; k < K; k++) sum += out[k] = Math.exp(score[at + k] - max);
  for (let k = 0; k < K; k++) out[k] /= sum;
}

/** One tree per call, grown best-leaf-first over histograms; buffers reused across rounds. */
class LeafWise {
  private off: Int32Array;
  private order: Uint32Array; // positions in `train`, grouped by leaf
  private evalOrder: Uint32Array; // positions in `evalRows`, grouped by leaf
  /** Bins of the training rows, row-major by position in `train`, and where each feature's start. */
  private rowBins: Uint8Array;
  private base: Int32Array;
  private spill: Uint32Array;
  private free: Float64Array[] = [];

  constructor(
    private set: BoostSet,
    private train: Uint32Array,
    private evalRows: Uint32Array,
    private o: GbmOptions,
  ) {
    this.off = offsets(set);
    this.order = new Uint32Array(train.length);
    this.evalOrder = new Uint32Array(evalRows.length);
    this.base = Int32Array.from(this.off.subarray(0, set.data.features), (o) => 3 * o);
    this.rowBins = rowMajor(set.data, train);
    this.spill = new Uint32Array(Math.max(train.length, evalRows.length));
  }

  private histBuffer(): Float64Array {
    return this.free.pop()?.fill(0) ?? new Float64Array(3 * this.off[this.set.data.features]);
  }

  /** Histogram of a leaf's rows (gradients gathered first, so the per-feature loops read in order). */
  private histogram(leaf: Leaf, grad: Float64Array, hess: Float64Array): void {
    const { order, rowBins, base } = this;
    const p = base.length;
    const hist = leaf.hist;
    // Row by row over the row-major bins (LightGBM's row-wise mode): one gradient read per row, and
    // the row's updates go to p different features' bins, so they do not wait on each other.
    for (let k = leaf.a; k < leaf.b; k++) {
      const i = order[k];
      const g = grad[i], h = hess[i];
      const at0 = i * p;
      for (let f = 0; f < p; f++) {
        const at = base[f] + 3 * rowBins[at0 + f];
        hist[at] += g;
        hist[at + 1] += h;
        hist[at + 2]++;
      }
    }
  }

  /** The best split of a leaf under the child constraints; gain 0 when there is none. */
  private findSplit(leaf: Leaf): void {
    const { minDataInLeaf, minSumHessian, lambda } = this.o;
    const { off } = this;
    const hist = leaf.hist;
    const count = leaf.b - leaf.a;
    const parent = (leaf.g * leaf.g) / (leaf.h + lambda);
    leaf.gain = 0;
    for (let f = 0; f < this.set.data.features; f++) {
      let gL = 0, hL = 0, nL = 0;
      for (let bin = 0; bin < off[f + 1] - off[f] - 1; bin++) {
        const at = 3 * (off[f] + bin);
        gL += hist[at];
        hL += hist[at + 1];
        nL += hist[at + 2];
        const nR = count - nL;
        if (nL < minDataInLeaf || hL < minSumHessian) continue;
        if (nR < minDataInLeaf) break;
        const gR = leaf.g - gL, hR = leaf.h - hL;
        if (hR < minSumHessian) continue;
        const gain = (gL * gL) / (hL + lambda) + (gR * gR) / (hR + lambda) - parent;
        if (gain > leaf.gain) {
          leaf.gain = gain;
          leaf.feature = f;
          leaf.threshold = bin;
        }
      }
    }
  }

  grow(
    grad: Float64Array,
    hess: Float64Array,
    importance: Float64Array,
    score: Float64Array,
    evalScore: Float64Array,
    k: number,
    K: number,
  ): void {
    const { order, evalOrder } = this;
    for (let i = 0; i < order.length; i++) order[i] = i;
    for (let e = 0; e < evalOrder.length; e++) evalOrder[e] = e;
    let g = 0, h = 0;
    for (let i = 0; i < grad.length; i++) g += grad[i], h += hess[i];
    const root: Leaf = {
      a: 0,
      b: order.length,
      ea: 0,
      eb: evalOrder.length,
      g,
      h,
      hist: this.histBuffer(),
      gain: 0,
      feature: -1,
      threshold: -1,
    };
    this.histogram(root, grad, hess);
    this.findSplit(root);
    const leaves = [root];
    while (leaves.length < this.o.numLeaves) {
      let best = -1;
      for (let l = 0; l < leaves.length; l++) {
        if (leaves[l].gain > 0 && (best < 0 || leaves[l].gain > leaves[best].gain)) best = l;
      }
      if (best < 0) break;
      const [left, right] = this.split(leaves[best], grad, hess);
      importance[leaves[best].feature] += leaves[best].gain;
      leaves[best] = left;
      leaves.push(right);
    }
    const { learningRate, lambda } = this.o;
    for (const leaf of leaves) {
      const value = (-leaf.g / (leaf.h + lambda)) * learningRate;
      for (let i = leaf.a; i < leaf.b; i++) score[order[i] * K + k] += value;
      for (let e = leaf.ea; e < leaf.eb; e++) evalScore[evalOrder[e] * K + k] += value;
      this.free.push(leaf.hist);
    }
  }

  /** Splits a leaf: partitions its rows, scans the smaller child, subtracts for the larger. */
  private split(leaf: Leaf, grad: Float64Array, hess: Float64Array): [Leaf, Leaf] {
    const { order, evalOrder } = this;
    const { bins, rows: N } = this.set.data;
    const col = leaf.feature * N, t = leaf.threshold;
    const i = partitionPositions(bins, col, t, order, this.train, leaf.a, leaf.b, this.spill);
    const ei = partitionPositions(bins, col, t, evalOrder, this.evalRows, leaf.ea, leaf.eb, this.spill);
    const make = (a: number, b: number, ea: number, eb: number): Leaf => {
      let g = 0, h = 0;
      for (let k = a; k < b; k++) g += grad[order[k]], h += hess[order[k]];
      return { a, b, ea, eb, g, h, hist: leaf.hist, gain: 0, feature: -1, threshold: -1 };
    };
    const left = make(leaf.a, i, leaf.ea, ei);
    const right = make(i, leaf.b, ei, leaf.eb);
    const [small, large] = left.b - left.a <= right.b - right.a ? [left, right] : [right, left];
    small.hist = this.histBuffer();
    this.histogram(small, grad, hess);
    for (let x = 0; x < large.hist.length; x++) large.hist[x] -= small.hist[x];
    this.findSplit(left);
    this.findSplit(right);
    return [left, right];
  }
}
