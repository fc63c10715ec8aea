/**
 * Features as small integers: at most 255 bins per feature, cut at equal-frequency points of the
 * training values (one bin per distinct value when there are few, as LightGBM's `max_bin` does). Every
 * tree here searches splits over these bins, so a node's split search costs O(rows + bins), not a sort.
 */
import { type Alloc, localAlloc } from "../memory.ts";

export const MAX_BINS = 255;

/** A feature matrix of bin numbers, feature-major: `bins[f * rows + i]`. */
export interface Binned {
  rows: number;
  features: number;
  bins: Uint8Array;
  /** Number of bins of each feature. */
  binCount: Int32Array;
  /** Per feature, the value between bin b and b+1 (length binCount − 1): bin b holds v ≤ edges[b]. */
  edges: Float64Array[];
  /** Per feature, the smallest and largest training value (the outer ends of the first and last bin). */
  low: Float64Array;
  high: Float64Array;
}

/** Cut points of one feature from its training values. */
export function binEdges(train: Float64Array, maxBins = MAX_BINS): Float64Array {
  const sorted = train.slice().sort();
  const values: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (i > 0 && sorted[i] === sorted[i - 1]) counts[counts.length - 1]++;
    else {
      values.push(sorted[i]);
      counts.push(1);
    }
  }
  const edges: number[] = [];
  if (values.length <= maxBins) {
    for (let i = 0; i + 1 < values.length; i++) edges.push((values[i] + values[i + 1]) / 2);
    return Float64Array.from(edges);
  }
  // Equal frequency: close a bin once the running count passes the next multiple of n / maxBins; a
  // value heavier than that gets a bin of its own.
  const target = sorted.length / maxBins;
  let acc = 0;
  for (let i = 0; i + 1 < values.length && edges.length < maxBins - 1; i++) {
    acc += counts[i];
    if (acc >= (edges.length + 1) * target) edges.push((values[i] + values[i + 1]) / 2);
  }
  return Float64Array.from(edges);
}

/** The bin of `v`: the number of edges below it. */
export function binOf(edges: Float64Array, v: number): number {
  let lo = 0;
  let hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (edges[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Bins every row of every feature with edges learnt from the `train` rows only, so the held-out rows
 * are binned as unseen data would be.
 */
export function binFeatures(columns: Float64Array[], train: Uint32Array, alloc: Alloc = localAlloc): Binned {
  const rows = columns.length ? columns[0].length : 0;
  const features = columns.length;
  const bins = new Uint8Array(alloc(rows * features));
  const binCount = new Int32Array(features);
  const edges: Float64Array[] = [];
  const low = new Float64Array(features);
  const high = new Float64Array(features);
  const values = new Float64Array(train.length);
  for (let f = 0; f < features; f++) {
    const col = columns[f];
    for (let k = 0; k < train.length; k++) values[k] = col[train[k]];
    const e = binEdges(values);
    edges.push(e);
    binCount[f] = e.length + 1;
    [low[f], high[f]] = minMax(values);
    const out = bins.subarray(f * rows, (f + 1) * rows);
    for (let i = 0; i < rows; i++) out[i] = binOf(e, col[i]);
  }
  return { rows, features, bins, binCount, edges, low, high };
}

function minMax(v: Float64Array): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < v.length; i++) {
    if (v[i] < lo) lo = v[i];
    if (v[i] > hi) hi = v[i];
  }
  return [lo, hi];
}
