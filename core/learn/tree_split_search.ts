/**
 * The split search of one feature over one tree node: the node's bins of the feature gathered once
 * (from the node rows kept in node order in WebAssembly memory, `SplitArena`), then the best gini
 * threshold. It is exact (between adjacent fine bins, one per distinct training value, as
 * scikit-learn) in nodes of up to COARSE_ABOVE (1,024) rows and wherever the feature has at most
 * RANGE_PER_ROW fine bins per node row (or its coarse bins are all one in the node), from a class
 * histogram over the node's bin range or, when that range is much wider than the node, from the rows
 * sorted by bin; a larger node over a feature with more values searches a histogram of its 255 coarse
 * quantile bins instead, as LightGBM does (quantile thresholds where a node is big enough for them to
 * be close). Extra trees draw one random threshold over the fine bins instead. With two classes (most
 * fits) the counts and scans run in WebAssembly (wasm/tree_split.ts); with more, here, over keys sorted
 * there. Results go into fields, not objects: a forest searches millions of (node, feature) pairs.
 */
import type { Binned } from "./binning.ts";
import { between, score } from "./criteria.ts";
import { KEY_PLACE_BITS, type SplitArena } from "./tree_split_wasm.ts";

/** A histogram pays when the node's bin range is at most this many times its row count. */
const RANGE_PER_ROW = 4;
/** Nodes with more rows than this search the coarse bins when the fine ones would need a sort. */
const COARSE_ABOVE = 1024;
/** Extra trees' nodes of at least this many rows count a split in WebAssembly (`SplitArena.countLeft`). */
const WASM_COUNT_FROM = 12;
const PLACE_MASK = (1 << KEY_PLACE_BITS) - 1;

/** What a search of one feature found: the feature is constant in the node, no valid split, a split. */
export const CONSTANT = 0;
export const NO_SPLIT = 1;
export const FOUND = 2;

/** Searches one node's features; the tree sets the row arrays per tree and the totals per node. */
export class NodeSearch {
  readonly C: number;
  /** Class counts per bin for more than two classes (two-class histograms live in the arena). */
  private hist: Float64Array;
  /** The node's bins of the feature searched last, by position (in the arena). */
  gathered: Uint16Array;
  /** Extra trees: four features' bins gathered in one pass (`gatherFour`), and their ranges. */
  private ahead: Uint16Array[];
  private aheadLo = new Int32Array(4);
  private aheadHi = new Int32Array(4);
  /** The node's rows (positions in `rows`), their classes and weights, in the tree's order (the arena's). */
  idx: Uint32Array = new Uint32Array(0);
  readonly ys: Int32Array;
  ws: Float64Array = new Float64Array(0);
  /** False when every weight is 1 (no bootstrap). */
  weighted = true;
  /** Class weights of the node and their sum. */
  readonly total: Float64Array;
  n = 0;
  /** The candidate of the last search that returned FOUND (extra trees: its threshold bin too). */
  score = 0;
  threshold = 0;
  readonly left: Float64Array;
  private lo = 0;
  private hi = 0;
  /** An exact search's candidate: the split between bins prev | next, coarse ones when inCoarse. */
  prev = -1;
  next = -1;
  inCoarse = false;

  constructor(
    readonly fine: Binned<Uint16Array>,
    readonly coarse: Binned<Uint8Array>,
    classes: number,
    /**
     * Where the node rows, the gathered bins (slots 0-4 of its bin arrays) and the split's coarse bins
     * (read by position in big nodes, whose rows are dense enough for that to sweep forward) live.
     */
    private readonly arena: SplitArena,
  ) {
    this.C = classes;
    this.hist = new Float64Array(classes > 2 ? arena.histBins * classes : 0);
    this.ys = arena.ys;
    this.gathered = arena.bins[0];
    this.ahead = arena.bins.slice(1, 5);
    this.total = new Float64Array(classes);
    this.left = new Float64Array(classes);
  }

  /** The node's fine bins of feature f into `gathered[a..b)`, and their range. */
  private gather(f: number, a: number, b: number): void {
    const range = this.arena.gather(f, a, b, this.gathered);
    this.lo = range[0];
    this.hi = range[1];
  }

  /** The best threshold of feature f over rows [a, b): CONSTANT, NO_SPLIT or FOUND. */
  exact(f: number, a: number, b: number): number {
    const m = b - a;
    if (m > COARSE_ABOVE && this.fine.binCount[f] > RANGE_PER_ROW * m) {
      // A big node over a feature with many values: the coarse bins, gathered and counted in one pass
      // (two classes: in WebAssembly), unless the node's rows all share one coarse bin.
      this.inCoarse = true;
      if (this.C === 2) {
        const r = this.arena.coarseSplit(f, a, b);
        if (r !== 2) return this.taken(r === 1);
      } else {
        this.gatherCounts(f, a, b);
        if (this.lo < this.hi) return this.scan(0);
        this.hist.fill(0, this.lo * this.C, (this.lo + 1) * this.C);
      }
    }
    this.gather(f, a, b);
    if (this.lo === this.hi) return CONSTANT;
    this.inCoarse = false;
    return this.hi - this.lo <= RANGE_PER_ROW * m || m > COARSE_ABOVE
      ? this.histogram(a, b)
      : this.sorted(a, b);
  }

  /**
   * The threshold of an exact search's candidate, the split between the node's bins prev | next
   * (coarse ones when `inCoarse`), as a fine bin (a coarse threshold's last fine bin: the same rows go
   * left). Computed for the chosen feature only: the midpoint search is a fair share of a forest's time.
   */
  fineThreshold(f: number, prev: number, next: number, inCoarse: boolean): number {
    if (!inCoarse) return between(this.fine.centres[f], prev, next);
    return this.coarse.ends![f][between(this.coarse.centres[f], prev, next)];
  }

  /** The class counts of feature f's coarse bins into `hist` (at 0), and their range. */
  private gatherCounts(f: number, a: number, b: number): void {
    const { coarse: bins } = this.arena, p = this.fine.features;
    const { idx, hist, ys, ws, C } = this;
    let lo = 255, hi = 0;
    for (let k = a; k < b; k++) {
      const bin = bins[idx[k] * p + f];
      hist[bin * C + ys[k]] += ws[k];
      if (bin < lo) lo = bin;
      if (bin > hi) hi = bin;
    }
    this.lo = lo;
    this.hi = hi;
  }

  /** Keeps the split between bins prev | next when it beats the candidate so far (left counts in `cur`). */
  private consider(prev: number, next: number, cur: Float64Array, nLeft: number): void {
    const sc = score(cur, nLeft, this.total, this.n);
    if (this.prev >= 0 && sc <= this.score) return;
    this.score = sc;
    this.prev = prev;
    this.next = next;
    this.left.set(cur);
  }

  /** FOUND (the candidate in prev, next, score, left) or NO_SPLIT. */
  private result(): number {
    return this.prev < 0 ? NO_SPLIT : FOUND;
  }

  /** FOUND with the candidate the WebAssembly search left in the arena, or NO_SPLIT. */
  private taken(found: boolean): number {
    const { arena, left } = this;
    if (!found) {
      this.prev = -1;
      return NO_SPLIT;
    }
    this.score = arena.split[0];
    left[0] = arena.split[1];
    left[1] = arena.split[2];
    this.prev = arena.splitBins[0];
    this.next = arena.splitBins[1];
    return FOUND;
  }

  private histogram(a: number, b: number): number {
    const { C, hist, gathered: g, ys, ws, lo } = this;
    if (C === 2) return this.taken(this.arena.histogramSplit(g, a, b, lo, this.hi));
    const base = lo * C;
    for (let k = a; k < b; k++) hist[g[k] * C + ys[k] - base] += ws[k];
    return this.scan(base);
  }

  /** The best split from the class counts of bins lo..hi in `hist` (bin b at b·C − base); clears them. */
  private scan(base: number): number {
    const { C, hist, lo, hi } = this;
    let prev = -1;
    this.prev = -1;
    const cur = this.cumulative();
    let nLeft = 0;
    for (let bin = lo; bin <= hi; bin++) {
      let inBin = 0;
      for (let c = 0; c < C; c++) inBin += hist[bin * C + c - base];
      if (inBin === 0) continue;
      if (prev >= 0) this.consider(prev, bin, cur, nLeft);
      for (let c = 0; c < C; c++) cur[c] += hist[bin * C + c - base];
      nLeft += inBin;
      prev = bin;
    }
    hist.fill(0, lo * C - base, (hi + 1) * C - base);
    return this.result();
  }

  private sorted(a: number, b: number): number {
    // Two classes (most of a forest's time): sorted and scanned in WebAssembly.
    if (this.C === 2) return this.taken(this.arena.sortedSplit(this.gathered, a, b));
    const { ys, ws } = this;
    const m = b - a;
    // Keys bin·2^11 + place (m ≤ 2048), sorted by bin in WebAssembly: the place finds class and weight.
    const keys = this.arena.sortKeys(this.gathered, a, b);
    this.prev = -1;
    const cur = this.cumulative();
    let nLeft = 0;
    for (let k = 0; k < m - 1; k++) {
      const at = a + (keys[k] & PLACE_MASK);
      const w = ws[at];
      cur[ys[at]] += w;
      nLeft += w;
      const bin = keys[k] >>> KEY_PLACE_BITS, nextBin = keys[k + 1] >>> KEY_PLACE_BITS;
      if (bin !== nextBin) this.consider(bin, nextBin, cur, nLeft);
    }
    return this.result();
  }

  private cur = new Float64Array(0);
  private cumulative(): Float64Array {
    if (this.cur.length !== this.C) this.cur = new Float64Array(this.C);
    return this.cur.fill(0);
  }

  /**
   * One threshold drawn uniformly between the feature's smallest and largest value in the node (as
   * scikit-learn's extra trees draw it): CONSTANT or FOUND.
   */
  random(f: number, a: number, b: number, rng: { next(): number }): number {
    this.gather(f, a, b);
    return this.draw(f, a, b, rng);
  }

  /**
   * Extra trees: the node's fine bins of the `count` (1 to 4) features fs[from..] gathered in one pass
   * into slots 0..count−1, because a row's features share a cache line and a second pass would reread
   * it (`randomGathered` then draws from a slot). More than four features go four at a time; a draw
   * past max_features (when some drawn ones are constant in the node) is gathered alone by `random`.
   */
  gatherFour(fs: Int32Array, from: number, count: number, a: number, b: number): void {
    const range = this.arena.gatherFour(fs, from, count, a, b, this.ahead);
    const { aheadLo, aheadHi } = this;
    for (let t = 0; t < 4; t++) {
      aheadLo[t] = range[2 * t];
      aheadHi[t] = range[2 * t + 1];
    }
  }

  /** `random` over the bins `gatherFour` left in `slot` (feature f): CONSTANT or FOUND. */
  randomGathered(slot: number, f: number, a: number, b: number, rng: { next(): number }): number {
    const kept = this.gathered;
    this.gathered = this.ahead[slot];
    this.ahead[slot] = kept;
    this.lo = this.aheadLo[slot];
    this.hi = this.aheadHi[slot];
    return this.draw(f, a, b, rng);
  }

  /** The draw and its split's class counts over the gathered bins of feature f. */
  private draw(f: number, a: number, b: number, rng: { next(): number }): number {
    const { lo, hi, gathered: g, ys, ws, left } = this;
    if (lo === hi) return CONSTANT;
    const centres = this.fine.centres[f];
    const u = centres[lo] + rng.next() * (centres[hi] - centres[lo]);
    const l = this.binOfDraw(centres, u, lo, hi);
    let nLeft = 0;
    if (this.C === 2 && !this.weighted && b - a >= WASM_COUNT_FROM) {
      // Two classes, every weight 1: counted in WebAssembly, eight rows a step.
      this.arena.countLeft(g, a, b, l, left);
      nLeft = left[0] + left[1];
    } else if (this.C === 2 && !this.weighted) {
      // The same in registers: a call into WebAssembly costs about as much as ten rows.
      let ones = 0;
      for (let k = a; k < b; k++) {
        const go = 1 - ((l - g[k]) >>> 31); // 1 if bin ≤ l: no branch
        nLeft += go;
        ones += go & ys[k];
      }
      left[0] = nLeft - ones;
      left[1] = ones;
    } else if (this.C === 2) {
      // Two classes: sums in registers, not a store per row to left[class].
      let ones = 0;
      for (let k = a; k < b; k++) {
        const w = ws[k] * (1 - ((l - g[k]) >>> 31)); // the weight if bin ≤ l, else 0: no branch
        nLeft += w;
        ones += w * ys[k];
      }
      left[0] = nLeft - ones;
      left[1] = ones;
    } else {
      left.fill(0);
      for (let k = a; k < b; k++) {
        const w = ws[k] * (1 - ((l - g[k]) >>> 31));
        left[ys[k]] += w;
        nLeft += w;
      }
    }
    this.threshold = l;
    this.score = score(left, nLeft, this.total, this.n);
    return FOUND;
  }

  /**
   * The last bin whose value is at most u, in [lo, hi − 1] (the last bin always goes right, so both
   * sides have rows), by binary search. V8 compiles the comparison to a branch: mispredicted half
   * the time, but speculation fetches the next probe early, and over a feature's values a branch-free
   * select, which waits for each load, measured slower (as did one in WebAssembly).
   */
  private binOfDraw(centres: Float64Array, u: number, lo: number, hi: number): number {
    let l = lo, len = hi - lo;
    while (len > 1) {
      const half = len >> 1;
      l += centres[l + half] <= u ? half : 0;
      len -= half;
    }
    return l;
  }
}
