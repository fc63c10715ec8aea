// deno-lint-ignore-file
// AssemblyScript source of the trees' node kernel (built by `deno task build:wasm` into split.wasm).
// A tree's node rows are kept in node order, each row's bins together, so a node is one block: its
// bins of a feature are gathered by one forward sweep (not one random read per row), and the
// partition moves the bins with the rows, 16 bytes per SIMD step. Extra trees count a drawn split eight
// rows per SIMD step (in JavaScript that count was a fifth of an extra-trees fit), and the exact
// two-class searches (sorted by bin, from a histogram, over coarse bins) run here as well.
// Memory is laid out by the loader (core/learn/tree_split_wasm.ts) above heapBase().

/** First free byte of linear memory: the loader places the node arrays above it. */
export function heapBase(): usize {
  return __heap_base;
}

/**
 * Rows k in [a, b) with bin g[k] ≤ l (u16 bins at `g`), written to `out` as an i32; returns how many
 * of them have y[k] = 1 (i32 classes 0 or 1 at `y`).
 */
export function countLeft(g: usize, y: usize, a: i32, b: i32, l: i32, out: usize): i32 {
  const limit = i16x8.splat(<i16> l);
  let left = i32x4.splat(0), ones = i32x4.splat(0);
  let k = a;
  for (; k + 8 <= b; k += 8) {
    // Lanes of all ones where bin ≤ l: minus one per row on the left, and a mask over y.
    const go = i16x8.le_u(v128.load(g + (<usize> k << 1)), limit);
    const low = i32x4.extend_low_i16x8_s(go), high = i32x4.extend_high_i16x8_s(go);
    left = i32x4.add(left, i32x4.add(low, high));
    const y0 = v128.load(y + (<usize> k << 2)), y1 = v128.load(y + (<usize> (k + 4) << 2));
    ones = i32x4.add(ones, i32x4.add(v128.and(low, y0), v128.and(high, y1)));
  }
  let nLeft = -(i32x4.extract_lane(left, 0) + i32x4.extract_lane(left, 1) +
    i32x4.extract_lane(left, 2) + i32x4.extract_lane(left, 3));
  let nOnes = i32x4.extract_lane(ones, 0) + i32x4.extract_lane(ones, 1) + i32x4.extract_lane(ones, 2) +
    i32x4.extract_lane(ones, 3);
  for (; k < b; k++) {
    const go = <i32> (<i32> load<u16>(g + (<usize> k << 1)) <= l);
    nLeft += go;
    nOnes += go & load<i32>(y + (<usize> k << 2));
  }
  store<i32>(out, nLeft);
  return nOnes;
}

/**
 * The node-ordered bins: row k of `rows` (`stride` u16s, a multiple of 8) ← training row idx[k] of
 * `fine` (p u16s per row), for k < n. A node's rows are then a contiguous block, read in order.
 */
export function fillRows(rows: usize, stride: i32, fine: usize, p: i32, idx: usize, n: i32): void {
  const s = <usize> stride << 1, width = <usize> p << 1;
  for (let k = 0; k < n; k++) {
    memory.copy(rows + <usize> k * s, fine + <usize> load<u32>(idx + (<usize> k << 2)) * width, width);
  }
}

/** Feature f's bins of node rows [a, b) into `out` (u16 by row), their least and greatest into range[0..1]. */
export function gather(rows: usize, stride: i32, a: i32, b: i32, f: i32, out: usize, range: usize): void {
  const s = <usize> stride << 1;
  let at = rows + <usize> a * s + (<usize> f << 1);
  let lo: i32 = 65535, hi: i32 = 0;
  for (let k = a; k < b; k++, at += s) {
    const v = <i32> load<u16>(at);
    store<u16>(out + (<usize> k << 1), <u16> v);
    lo = min(lo, v);
    hi = max(hi, v);
  }
  store<i32>(range, lo);
  store<i32>(range, hi, 4);
}

/** `gather` of four features in one pass over the rows: ranges at range[0..7] (lo, hi per feature). */
export function gatherFour(
  rows: usize,
  stride: i32,
  a: i32,
  b: i32,
  f0: i32,
  f1: i32,
  f2: i32,
  f3: i32,
  o0: usize,
  o1: usize,
  o2: usize,
  o3: usize,
  range: usize,
): void {
  const s = <usize> stride << 1;
  let at = rows + <usize> a * s;
  const c0 = <usize> f0 << 1, c1 = <usize> f1 << 1, c2 = <usize> f2 << 1, c3 = <usize> f3 << 1;
  let lo0: i32 = 65535, hi0: i32 = 0, lo1: i32 = 65535, hi1: i32 = 0;
  let lo2: i32 = 65535, hi2: i32 = 0, lo3: i32 = 65535, hi3: i32 = 0;
  for (let k = a; k < b; k++, at += s) {
    const v0 = <i32> load<u16>(at + c0), v1 = <i32> load<u16>(at + c1);
    const v2 = <i32> load<u16>(at + c2), v3 = <i32> load<u16>(at + c3);
    const o = <usize> k << 1;
    store<u16>(o0 + o, <u16> v0);
    store<u16>(o1 + o, <u16> v1);
    store<u16>(o2 + o, <u16> v2);
    store<u16>(o3 + o, <u16> v3);
    lo0 = min(lo0, v0);
    hi0 = max(hi0, v0);
    lo1 = min(lo1, v1);
    hi1 = max(hi1, v1);
    lo2 = min(lo2, v2);
    hi2 = max(hi2, v2);
    lo3 = min(lo3, v3);
    hi3 = max(hi3, v3);
  }
  store<i32>(range, lo0);
  store<i32>(range, hi0, 4);
  store<i32>(range, lo1, 8);
  store<i32>(range, hi1, 12);
  store<i32>(range, lo2, 16);
  store<i32>(range, hi2, 20);
  store<i32>(range, lo3, 24);
  store<i32>(range, hi3, 28);
}

/**
 * A node's stable partition: rows [a, b) whose bin of feature f is at most t first, in order, then
 * the rest, in order; the node-ordered bins (`stride` u16s a row), positions `idx`, classes `ys`
 * and, when `weighted`, weights `ws` move together, without a branch on the side (both places
 * written, one advanced). The spills need b − a entries. Returns where the right side starts.
 */
export function partition(
  rows: usize,
  stride: i32,
  f: i32,
  t: i32,
  a: i32,
  b: i32,
  idx: usize,
  ys: usize,
  ws: usize,
  spillRows: usize,
  spillIdx: usize,
  spillY: usize,
  spillW: usize,
  weighted: i32,
): i32 {
  const s = <usize> stride << 1, col = <usize> f << 1;
  let i = a, r = 0;
  for (let k = a; k < b; k++) {
    const from = rows + <usize> k * s, to = rows + <usize> i * s, spill = spillRows + <usize> r * s;
    const left = <i32> (<i32> load<u16>(from + col) <= t);
    for (let o: usize = 0; o < s; o += 16) {
      const v = v128.load(from + o);
      v128.store(to + o, v);
      v128.store(spill + o, v);
    }
    const row = load<u32>(idx + (<usize> k << 2)), y = load<i32>(ys + (<usize> k << 2));
    store<u32>(idx + (<usize> i << 2), row);
    store<i32>(ys + (<usize> i << 2), y);
    store<u32>(spillIdx + (<usize> r << 2), row);
    store<i32>(spillY + (<usize> r << 2), y);
    if (weighted) {
      const w = load<f64>(ws + (<usize> k << 3));
      store<f64>(ws + (<usize> i << 3), w);
      store<f64>(spillW + (<usize> r << 3), w);
    }
    i += left;
    r += 1 - left;
  }
  memory.copy(rows + <usize> i * s, spillRows, <usize> r * s);
  memory.copy(idx + (<usize> i << 2), spillIdx, <usize> r << 2);
  memory.copy(ys + (<usize> i << 2), spillY, <usize> r << 2);
  if (weighted) memory.copy(ws + (<usize> i << 3), spillW, <usize> r << 3);
  return i;
}

/** Bits of a sort key's position part: keys are bin << POS_BITS | place, for nodes of up to 2,048 rows. */
const POS_BITS: i32 = 11;
const POS_MASK: i32 = (1 << POS_BITS) - 1;
/** Below this many rows an insertion sort beats the radix one. */
const INSERTION: i32 = 64;

/**
 * Keys bin << POS_BITS | k for k = 0..m−1 ordered by the bin g[a + k]: an insertion sort for a few
 * rows, else stable counting passes over the bin's low and high bytes, both counted in one pass
 * (`count`: 2 × 256), and a byte every row shares skipped (`tmp` holds m keys).
 */
function sortByBin(g: usize, a: i32, m: i32, keys: usize, tmp: usize, count: usize): void {
  if (m <= INSERTION) {
    for (let k = 0; k < m; k++) {
      const key = (<i32> load<u16>(g + (<usize> (a + k) << 1)) << POS_BITS) | k;
      let j = k - 1;
      while (j >= 0 && load<i32>(keys + (<usize> j << 2)) > key) {
        store<i32>(keys + (<usize> (j + 1) << 2), load<i32>(keys + (<usize> j << 2)));
        j--;
      }
      store<i32>(keys + (<usize> (j + 1) << 2), key);
    }
    return;
  }
  const low = count, high = count + 1024, rows = g + (<usize> a << 1);
  memory.fill(count, 0, 2048);
  let highMin: i32 = 255, highMax: i32 = 0;
  for (let k = 0; k < m; k++) {
    const bin = <i32> load<u16>(rows + (<usize> k << 1));
    const l = low + (<usize> (bin & 255) << 2), h = high + (<usize> (bin >>> 8) << 2);
    store<i32>(l, load<i32>(l) + 1);
    store<i32>(h, load<i32>(h) + 1);
    highMin = min(highMin, bin >>> 8);
    highMax = max(highMax, bin >>> 8);
  }
  const lowShared = load<i32>(low + (<usize> (load<u16>(rows) & 255) << 2)) === m;
  startsOf(low, 0, 255);
  startsOf(high, highMin, highMax);
  if (!lowShared) {
    // By the low byte, into the keys directly when the high byte is shared, else into tmp.
    const to = highMin === highMax ? keys : tmp;
    for (let k = 0; k < m; k++) {
      const bin = <i32> load<u16>(rows + (<usize> k << 1));
      const at = low + (<usize> (bin & 255) << 2), place = load<i32>(at);
      store<i32>(at, place + 1);
      store<i32>(to + (<usize> place << 2), (bin << POS_BITS) | k);
    }
    if (highMin === highMax) return;
    for (let k = 0; k < m; k++) {
      const key = load<i32>(tmp + (<usize> k << 2));
      const at = high + (<usize> (key >>> (POS_BITS + 8)) << 2), place = load<i32>(at);
      store<i32>(at, place + 1);
      store<i32>(keys + (<usize> place << 2), key);
    }
    return;
  }
  for (let k = 0; k < m; k++) {
    const bin = <i32> load<u16>(rows + (<usize> k << 1));
    const at = high + (<usize> (bin >>> 8) << 2), place = load<i32>(at);
    store<i32>(at, place + 1);
    store<i32>(keys + (<usize> place << 2), (bin << POS_BITS) | k);
  }
}

/** `sortByBin` for JavaScript's own scan (more than two classes): keys of rows [a, b) at `keys`. */
export function sortKeys(g: usize, a: i32, b: i32, keys: usize, tmp: usize, count: usize): void {
  sortByBin(g, a, b - a, keys, tmp, count);
}

/** Counts of digits from..to at `count` (i32 each) into where each digit's run starts, in place. */
function startsOf(count: usize, from: i32, to: i32): void {
  let sum = 0;
  for (let d = from; d <= to; d++) {
    const at = count + (<usize> d << 2), c = load<i32>(at);
    store<i32>(at, sum);
    sum += c;
  }
}

// The node under search (two classes): its rows' classes and weights, its class totals; set by `node`.
let ys: usize = 0, ws: usize = 0, t0: f64 = 0, t1: f64 = 0, n: f64 = 0;
// The best candidate of the split search under way: module state, so the scans share one `consider`;
// `report` writes it out.
let found = 0, best: f64 = 0, bestL0: f64 = 0, bestL1: f64 = 0, bestPrev = 0, bestNext = 0;

/** The node the next searches are over: its rows' classes (i32) and weights (f64), its class totals. */
export function node(classes: usize, weights: usize, total0: f64, total1: f64, total: f64): void {
  ys = classes;
  ws = weights;
  t0 = total0;
  t1 = total1;
  n = total;
}

/**
 * Keeps the split between bins prev | next, left class weights l0, l1, when its score
 * Σ left² / nLeft + Σ right² / nRight beats the best so far (the first always: ties keep the earlier).
 */
function consider(prev: i32, next: i32, l0: f64, l1: f64): void {
  const r0 = t0 - l0, r1 = t1 - l1, nLeft = l0 + l1;
  const sc = (l0 * l0 + l1 * l1) / nLeft + (r0 * r0 + r1 * r1) / (n - nLeft);
  if (found && sc <= best) return;
  found = 1;
  best = sc;
  bestL0 = l0;
  bestL1 = l1;
  bestPrev = prev;
  bestNext = next;
}

/** The best candidate as [score, left0, left1] (f64) then [prev, next] (i32) at `out`; 1 if there is one. */
function report(out: usize): i32 {
  store<f64>(out, best);
  store<f64>(out, bestL0, 8);
  store<f64>(out, bestL1, 16);
  store<i32>(out, bestPrev, 24);
  store<i32>(out, bestNext, 28);
  return found;
}

/**
 * The exact gini split of the node's rows [a, b) over the bins g, by sorting the rows on bin: each
 * boundary between distinct bins is a candidate (`consider`). Returns 1 with the best at `out`
 * (`report`), or 0.
 */
export function sortedSplit(
  g: usize,
  a: i32,
  b: i32,
  keys: usize,
  tmp: usize,
  count: usize,
  out: usize,
): i32 {
  const m = b - a;
  sortByBin(g, a, m, keys, tmp, count);
  found = 0;
  let l0: f64 = 0, l1: f64 = 0;
  let key = load<i32>(keys);
  for (let k = 0; k < m - 1; k++) {
    const at = <usize> (a + (key & POS_MASK));
    const w = load<f64>(ws + (at << 3)), y = <f64> load<i32>(ys + (at << 2));
    l1 += w * y;
    l0 += w * (1 - y);
    const following = load<i32>(keys + (<usize> (k + 1) << 2));
    const bin = key >>> POS_BITS, nextBin = following >>> POS_BITS;
    key = following;
    if (bin !== nextBin) consider(bin, nextBin, l0, l1);
  }
  return report(out);
}

/**
 * The best split from class weights per bin lo..hi in `hist` (bin b's two at 16·(b − lo) bytes):
 * each boundary between non-empty bins is a candidate. Clears the histogram; returns as `report`.
 */
function scan(hist: usize, lo: i32, hi: i32, out: usize): i32 {
  found = 0;
  let l0: f64 = 0, l1: f64 = 0, prev = -1;
  for (let bin = lo; bin <= hi; bin++) {
    const at = hist + (<usize> (bin - lo) << 4);
    const h0 = load<f64>(at), h1 = load<f64>(at, 8);
    if (h0 + h1 === 0) continue;
    if (prev >= 0) consider(prev, bin, l0, l1);
    l0 += h0;
    l1 += h1;
    prev = bin;
  }
  memory.fill(hist, 0, <usize> (hi - lo + 1) << 4);
  return report(out);
}

/** Adds row k's weight to its class in bin `bin` of the histogram at `hist` (two f64 a bin). */
function addWeight(hist: usize, bin: i32, k: i32): void {
  const at = hist + (<usize> bin << 4) + (<usize> load<i32>(ys + (<usize> k << 2)) << 3);
  store<f64>(at, load<f64>(at) + load<f64>(ws + (<usize> k << 3)));
}

/**
 * The exact split of the node's rows [a, b) from a class histogram of their bins g (all within
 * lo..hi, the node's range): for nodes whose bins are few for their rows. Returns as `report`.
 */
export function histogramSplit(g: usize, a: i32, b: i32, lo: i32, hi: i32, hist: usize, out: usize): i32 {
  for (let k = a; k < b; k++) addWeight(hist, <i32> load<u16>(g + (<usize> k << 1)) - lo, k);
  return scan(hist, lo, hi, out);
}

/**
 * A big node's split over feature f's coarse bins (`coarse`: p u8 per row, by position; the node
 * rows' positions at `idx`): the class histogram of rows [a, b), then its scan. Returns as `report`,
 * or 2 (histogram cleared) when the node's rows all share one coarse bin.
 */
export function coarseSplit(
  coarse: usize,
  p: i32,
  idx: usize,
  f: i32,
  a: i32,
  b: i32,
  hist: usize,
  out: usize,
): i32 {
  let lo: i32 = 255, hi: i32 = 0;
  for (let k = a; k < b; k++) {
    const row = <usize> load<u32>(idx + (<usize> k << 2));
    const bin = <i32> load<u8>(coarse + row * <usize> p + <usize> f);
    addWeight(hist, bin, k);
    lo = min(lo, bin);
    hi = max(hi, bin);
  }
  if (lo === hi) {
    memory.fill(hist + (<usize> lo << 4), 0, 16);
    return 2;
  }
  // The histogram sits at bin 0: scan from lo with the table shifted to match.
  return scan(hist + (<usize> lo << 4), lo, hi, out);
}
