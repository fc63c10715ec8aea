/**
 * Features as small integers: bins cut at equal-frequency points of the training values, one bin per
 * distinct value when there are few enough. Boosting uses 255 bins (LightGBM's `max_bin`). The CART
 * trees use up to 65,535, one per distinct value in practice, and tree_split_search.ts takes scikit-learn's
 * exact thresholds from them in nodes of up to 1,024 rows or where the feature has at most 4 distinct
 * values per node row, and the 255 quantile bins made of them (`coarsen`) in larger nodes, as LightGBM
 * does (255 bins in a small node can merge the two values on either side of a clean class boundary).
 * Split searches then count per bin instead of sorting values at every node.
 */
import { type Alloc, localAlloc } from "../memory.ts";

/** LightGBM's default `max_bin`. */
export const BOOST_BINS = 255;
/** Bins of the CART trees: a distinct value each, up to 65,535 (fewer with many classes, for memory). */
export const treeBins = (classes: number) => Math.min(65_535, Math.floor(4_194_304 / classes));

/** A feature matrix of bin numbers, feature-major: `bins[f * rows + i]`. */
export interface Binned<B extends Uint8Array | Uint16Array = Uint8Array | Uint16Array> {
  rows: number;
  features: number;
  bins: B;
  /** Number of bins of each feature. */
  binCount: Int32Array;
  /** Per feature, the value between bin b and b+1 (length binCount − 1): bin b holds v ≤ edges[b]. */
  edges: Float64Array[];
  /**
   * Per feature, the value a bin stands for: the training value itself when every distinct value has
   * a bin, else the middle of the bin's training values. Thresholds are placed between these.
   */
  centres: Float64Array[];
  /** Of coarse bins made from fine ones (`coarsen`): per feature, the last fine bin of each bin. */
  ends?: Uint16Array[];
}

/**
 * The bins of the rows `train` row-major, by position: `out[k * features + f]` is feature f of row
 * train[k]. The features a tree node or a boosting histogram reads of one row then share a cache line,
 * where feature-major columns of every row cost a cache miss each.
 */
export function rowMajor<B extends Uint8Array | Uint16Array>(
  data: Binned<B>,
  train: Uint32Array,
  out: B = new (data.bins.constructor as { new (n: number): B })(train.length * data.features),
): B {
  const { bins, features: p, rows: N } = data;
  for (let f = 0; f < p; f++) {
    for (let k = 0; k < train.length; k++) out[k * p + f] = bins[f * N + train[k]];
  }
  return out;
}

/** A feature's bin edges and centres. */
export interface FeatureBins {
  edges: Float64Array;
  centres: Float64Array;
}

/**
 * Where the bins of sorted distinct values end (the index of each bin's last value), given how many
 * training rows hold each value: one value per bin when they fit, else equal frequency, greedily as
 * LightGBM's GreedyFindBin: a value with at least n / maxBins rows gets a bin of its own, the other
 * values share the remaining bins equally.
 */
export function groupEnds(counts: ArrayLike<number>, maxBins: number): number[] {
  const d = counts.length;
  if (d <= maxBins) return Array.from({ length: d }, (_, i) => i);
  let n = 0;
  for (let i = 0; i < d; i++) n += counts[i];
  const heavy = Array.from({ length: d }, (_, i) => counts[i] >= n / maxBins);
  let heavyRows = 0, heavyBins = 0;
  for (let i = 0; i < d; i++) if (heavy[i]) heavyRows += counts[i], heavyBins++;
  const mean = heavyBins < maxBins ? (n - heavyRows) / (maxBins - heavyBins) : Infinity;
  const ends: number[] = [];
  let acc = 0;
  for (let i = 0; i + 1 < d && ends.length < maxBins - 1; i++) {
    acc += counts[i];
    if (heavy[i] || acc >= mean || (heavy[i + 1] && acc >= Math.max(1, mean / 2))) {
      ends.push(i);
      acc = 0;
    }
  }
  ends.push(d - 1);
  return ends;
}

/** Edges between the groups of sorted `values` ending at `ends`, and each group's centre. */
function groupsOf(values: ArrayLike<number>, ends: number[], edgeAfter: (i: number) => number): FeatureBins {
  const edges = new Float64Array(ends.length - 1);
  const centres = new Float64Array(ends.length);
  let first = 0;
  ends.forEach((end, b) => {
    centres[b] = (values[first] + values[end]) / 2;
    if (b + 1 < ends.length) edges[b] = edgeAfter(end);
    first = end + 1;
  });
  return { edges, centres };
}

/** Cut points and centres of one feature's bins, from its training values. */
export function binEdges(train: Float64Array, maxBins: number): FeatureBins {
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
  return groupsOf(values, groupEnds(counts, maxBins), (i) => (values[i] + values[i + 1]) / 2);
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
export function binFeatures<B extends Uint8Array | Uint16Array>(
  columns: Float64Array[],
  train: Uint32Array,
  maxBins: number,
  alloc: Alloc = localAlloc,
): Binned<B> {
  const rows = columns.length ? columns[0].length : 0;
  const features = columns.length;
  const bins =
    (maxBins <= 256
      ? new Uint8Array(alloc(rows * features))
      : new Uint16Array(alloc(2 * rows * features))) as B;
  const binCount = new Int32Array(features);
  const edges: Float64Array[] = [];
  const centres: Float64Array[] = [];
  const values = new Float64Array(train.length);
  for (let f = 0; f < features; f++) {
    const col = columns[f];
    for (let k = 0; k < train.length; k++) values[k] = col[train[k]];
    const fb = binEdges(values, maxBins);
    edges.push(fb.edges);
    centres.push(fb.centres);
    binCount[f] = fb.edges.length + 1;
    const out = bins.subarray(f * rows, (f + 1) * rows);
    for (let i = 0; i < rows; i++) out[i] = binOf(fb.edges, col[i]);
  }
  return { rows, features, bins, binCount, edges, centres };
}

/**
 * 255-bin features made of whole fine bins (grouped by training frequency as `binEdges` groups
 * values), so a threshold between coarse bins is one between fine bins: the trees search big nodes
 * on these, and boosting uses them as LightGBM's bins.
 */
export function coarsen(
  fine: Binned<Uint16Array>,
  train: Uint32Array,
  maxBins: number,
  alloc: Alloc = localAlloc,
) {
  const { rows, features } = fine;
  const bins = new Uint8Array(alloc(rows * features));
  const binCount = new Int32Array(features);
  const edges: Float64Array[] = [], centres: Float64Array[] = [], ends: Uint16Array[] = [];
  for (let f = 0; f < features; f++) {
    const src = fine.bins.subarray(f * rows, (f + 1) * rows);
    const counts = new Float64Array(fine.binCount[f]);
    for (const r of train) counts[src[r]]++;
    const groupEnd = groupEnds(counts, maxBins);
    const fb = groupsOf(fine.centres[f], groupEnd, (i) => fine.edges[f][i]);
    edges.push(fb.edges);
    centres.push(fb.centres);
    ends.push(Uint16Array.from(groupEnd));
    binCount[f] = groupEnd.length;
    const coarseOf = new Uint8Array(fine.binCount[f]);
    groupEnd.forEach((end, b) => coarseOf.fill(b, b ? groupEnd[b - 1] + 1 : 0, end + 1));
    const out = bins.subarray(f * rows, (f + 1) * rows);
    for (let i = 0; i < rows; i++) out[i] = coarseOf[src[i]];
  }
  const coarse: Binned<Uint8Array> = { rows, features, bins, binCount, edges, centres, ends };
  return coarse;
}
