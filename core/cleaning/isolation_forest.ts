/**
 * Isolation forest (Liu, Ting & Zhou 2008, as scikit-learn builds it): each tree isolates a subsample
 * of `maxSamples` rows by random splits on random columns down to depth ⌈log2 maxSamples⌉; rows that
 * isolate in few splits are anomalous. Trees are flat typed arrays so scoring 100,000 rows × 100 trees
 * stays a tight loop. Missing cells are the column median.
 */
import { type Detection, fillMedian, labelByContamination } from "./stats.ts";
import { Rng } from "../random.ts";

const EULER = 0.5772156649015329;

/** c(n): the average path length of an unsuccessful binary-search-tree search, the depth normaliser. */
export function averagePathLength(n: number): number {
  if (n <= 1) return 0;
  if (n === 2) return 1;
  return 2 * (Math.log(n - 1) + EULER) - 2 * (n - 1) / n;
}

interface Tree {
  feature: Int32Array; // -1 at a leaf
  split: Float64Array;
  left: Int32Array;
  right: Int32Array;
  /** At a leaf: depth + c(rows that reached it), the path length a row ending there gets. */
  pathAt: Float64Array;
}

/** Grows one tree on the rows `sample` (indices into the columns). */
function growTree(cols: Float64Array[], sample: Int32Array, maxDepth: number, rng: Rng): Tree {
  const cap = 2 * sample.length + 1;
  const t: Tree = {
    feature: new Int32Array(cap).fill(-1),
    split: new Float64Array(cap),
    left: new Int32Array(cap),
    right: new Int32Array(cap),
    pathAt: new Float64Array(cap),
  };
  let nodes = 0;
  const grow = (lo: number, hi: number, depth: number): number => {
    const node = nodes++;
    const size = hi - lo;
    if (depth >= maxDepth || size <= 1) {
      t.pathAt[node] = depth + averagePathLength(size);
      return node;
    }
    // A random column that still varies within the node (sklearn draws again on constant columns).
    const candidates = cols.map((_, j) => j);
    let feature = -1, mn = 0, mx = 0;
    while (candidates.length) {
      const j = candidates.splice(rng.int(candidates.length), 1)[0];
      mn = Infinity;
      mx = -Infinity;
      for (let i = lo; i < hi; i++) {
        const v = cols[j][sample[i]];
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      if (mx > mn) {
        feature = j;
        break;
      }
    }
    if (feature < 0) {
      t.pathAt[node] = depth + averagePathLength(size);
      return node;
    }
    const split = mn + rng.next() * (mx - mn);
    let i = lo, j = hi - 1;
    while (i <= j) { // partition: rows < split to the left
      if (cols[feature][sample[i]] < split) i++;
      else {
        const tmp = sample[i];
        sample[i] = sample[j];
        sample[j--] = tmp;
      }
    }
    t.feature[node] = feature;
    t.split[node] = split;
    t.left[node] = grow(lo, i, depth + 1);
    t.right[node] = grow(i, hi, depth + 1);
    return node;
  };
  grow(0, sample.length, 0);
  return t;
}

/** A sample of k distinct row indices out of n (partial Fisher–Yates). */
function sampleRows(n: number, k: number, rng: Rng): Int32Array {
  const idx = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + rng.int(n - i);
    const t = idx[i];
    idx[i] = idx[j];
    idx[j] = t;
  }
  return idx.slice(0, k);
}

export interface IsolationForestOptions {
  nEstimators?: number;
  maxSamples?: number;
  contamination?: number;
  seed?: number;
}

/** Scores every row with s = 2^(−E[h(x)] / c(ψ)) in (0, 1]; near 1 is anomalous, ≤ 0.5 ordinary. */
export function detectIsolationForest(columns: Float64Array[], opts: IsolationForestOptions = {}): Detection {
  const { nEstimators = 100, contamination = 0.1, seed = 0 } = opts;
  const cols = fillMedian(columns);
  const n = cols.length ? cols[0].length : 0;
  const psi = Math.min(opts.maxSamples ?? 256, n);
  const rng = new Rng(seed);
  const maxDepth = Math.ceil(Math.log2(Math.max(psi, 2)));
  const total = new Float64Array(n);
  for (let e = 0; e < nEstimators && n > 0; e++) {
    const t = growTree(cols, sampleRows(n, psi, rng), maxDepth, rng);
    for (let i = 0; i < n; i++) {
      let node = 0;
      while (t.feature[node] >= 0) {
        node = cols[t.feature[node]][i] < t.split[node] ? t.left[node] : t.right[node];
      }
      total[i] += t.pathAt[node];
    }
  }
  const norm = averagePathLength(psi) || 1;
  const scores = total.map((h) => 2 ** (-(h / nEstimators) / norm));
  return labelByContamination(scores, contamination);
}
