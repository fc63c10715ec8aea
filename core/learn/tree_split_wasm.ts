/**
 * Typed loader of the trees' node kernel (wasm/tree_split.ts compiled to tree_split.wasm). A tree's node rows
 * live in the module's linear memory in node order, each row's bins beside its neighbours', so a split
 * search reads a node as one block instead of one random read per row; the partition moves the bins
 * with the rows. Each worker isolate has its own instance (the import is per isolate); within one, the
 * memory belongs to the latest arena, since a fit uses one arena from start to end.
 */
import * as kernel from "../../wasm/tree_split.wasm";
import { Layout } from "../../wasm/layout.ts";
import { LimitError } from "../errors.ts";

// The kernel's functions take byte offsets and counts (see wasm/tree_split.ts); the class below names them.
type Kernel = (...args: number[]) => number;
const exports = kernel as unknown as
  & {
    memory: WebAssembly.Memory;
    heapBase(): number;
  }
  & Record<
    | "countLeft"
    | "fillRows"
    | "gather"
    | "gatherFour"
    | "partition"
    | "sortedSplit"
    | "sortKeys"
    | "histogramSplit"
    | "coarseSplit"
    | "node",
    Kernel
  >;

/** Bits of a sort key's place part: the kernel's keys are bin << KEY_PLACE_BITS | place (wasm/tree_split.ts). */
export const KEY_PLACE_BITS = 11;
/** Nodes of up to this many rows can be sorted by `sortedSplit` and `sortKeys`. */
export const SORTED_MAX = 2 ** KEY_PLACE_BITS;

/** Arenas made so far in this isolate: only the latest owns the memory. */
let made = 0;

/** Rows carried down a tree in node order: byte offsets of their bins, positions, classes, weights and spills. */
interface Block {
  rows: number;
  idx: number;
  ys: number;
  ws: number;
  spillRows: number;
  spillIdx: number;
  spillY: number;
  spillW: number;
}

/**
 * A training split's node arrays in the kernel's memory, for samples of up to `n` rows of `p`
 * features and `nEval` rows to predict: the bins of both row-major (`fine`, `evalFine` and the
 * split's `coarse`, filled by the caller), each kept in node order down a tree (bins, positions,
 * classes, weights), `slots` arrays of one feature's bins over the node rows, and a class histogram
 * of up to `histBins` bins.
 */
export class SplitArena {
  /** The training split's bins, row by row (p per row), by position in the split. */
  readonly fine: Uint16Array;
  /** The rows to predict, the same way, by position in the evaluation rows. */
  readonly evalFine: Uint16Array;
  /** The training split's coarse bins (at most 256 per feature), row by row, by position in the split. */
  readonly coarse: Uint8Array;
  /** The node rows: positions in the split, their classes and weights, in the tree's order. */
  readonly idx: Uint32Array;
  readonly ys: Int32Array;
  readonly ws: Float64Array;
  /**
   * What the last two-class search (sorted, histogram or coarse) found: score, left weight of class 0
   * and of class 1; then (`splitBins`) prev, next.
   */
  readonly split: Float64Array;
  readonly splitBins: Int32Array;
  /** The rows to predict in the tree's order: positions in the evaluation rows. */
  readonly evalIdx: Uint32Array;
  /** Gathered bins of one feature over the node rows, by place in the tree's order. */
  readonly bins: Uint16Array[];
  /** u16s per node-ordered row: p rounded up to whole 16-byte SIMD words. */
  private readonly stride: number;
  private readonly range: Int32Array;
  private readonly id = ++made;
  // Byte offsets, read once: a view's getter costs a few ns a call, and a tree makes millions of calls.
  private readonly fineAt: number;
  private readonly evalFineAt: number;
  private readonly rangeAt: number;
  /** Bins the class histogram holds (at least the 256 of the coarse bins). */
  readonly histBins: number;
  private readonly sortAt: {
    keys: number;
    tmp: number;
    count: number;
    out: number;
    hist: number;
    coarse: number;
  };
  private readonly train: Block;
  private readonly eval: Block;

  constructor(
    n: number,
    private readonly nEval: number,
    private readonly p: number,
    slots: number,
    histBins = 256,
  ) {
    this.stride = Math.ceil(p / 8) * 8;
    const lay = new Layout(exports.heapBase());
    this.fineAt = lay.take(2 * n * p);
    this.evalFineAt = lay.take(2 * nEval * p);
    this.rangeAt = lay.take(32);
    this.sortAt = {
      keys: lay.take(4 * SORTED_MAX),
      tmp: lay.take(4 * SORTED_MAX),
      count: lay.take(4 * 512),
      out: lay.take(32),
      hist: lay.take(16 * (this.histBins = Math.max(histBins, 256))),
      coarse: lay.take(n * p),
    };
    const row = 2 * this.stride;
    const block = (m: number): Block => ({
      rows: lay.take(row * m),
      idx: lay.take(4 * m),
      ys: lay.take(4 * m),
      ws: lay.take(8 * m),
      spillRows: lay.take(row * m),
      spillIdx: lay.take(4 * m),
      spillY: lay.take(4 * m),
      spillW: lay.take(8 * m),
    });
    this.train = block(n);
    this.eval = block(nEval);
    const slotAt = Array.from({ length: slots }, () => lay.take(2 * n));
    try {
      lay.fit(exports.memory);
    } catch {
      const mb = Math.ceil(lay.take(0) / 2 ** 20);
      throw new LimitError(
        `training on ${n} rows of ${p} features needs ${mb} MB of WebAssembly memory, more than a module can ` +
          `have (4,096 MB): use fewer rows or features`,
      );
    }
    const buf = exports.memory.buffer;
    this.fine = new Uint16Array(buf, this.fineAt, n * p);
    this.evalFine = new Uint16Array(buf, this.evalFineAt, nEval * p);
    this.coarse = new Uint8Array(buf, this.sortAt.coarse, n * p);
    // The searches leave the histogram clear; it starts clear too (an older arena used this memory).
    new Uint8Array(buf, this.sortAt.hist, 16 * this.histBins).fill(0);
    this.idx = new Uint32Array(buf, this.train.idx, n);
    this.ys = new Int32Array(buf, this.train.ys, n);
    this.ws = new Float64Array(buf, this.train.ws, n);
    this.split = new Float64Array(buf, this.sortAt.out, 3);
    this.splitBins = new Int32Array(buf, this.sortAt.out + 24, 2);
    this.evalIdx = new Uint32Array(buf, this.eval.idx, nEval);
    this.range = new Int32Array(buf, this.rangeAt, 8);
    this.bins = slotAt.map((at) => new Uint16Array(buf, at, n));
  }

  /** False once a newer arena took the memory (this one's arrays are then overwritten or detached). */
  get current(): boolean {
    return this.id === made;
  }

  /**
   * A new tree's node rows: the positions `sample`, their weights and their bins in that order (their
   * classes are the caller's to fill), and every row to predict, in order.
   */
  fillRows(sample: Uint32Array, weights: Float64Array): void {
    const { train, eval: ev, stride, p, nEval } = this;
    this.idx.set(sample);
    this.ws.set(weights.subarray(0, sample.length));
    exports.fillRows(train.rows, stride, this.fineAt, p, train.idx, sample.length);
    for (let e = 0; e < nEval; e++) this.evalIdx[e] = e;
    exports.fillRows(ev.rows, stride, this.evalFineAt, p, ev.idx, nEval);
  }

  /** Feature f's bins of node rows [a, b) into `out` (one of `bins`); returns [least, greatest] in `range`. */
  gather(f: number, a: number, b: number, out: Uint16Array): Int32Array {
    exports.gather(this.train.rows, this.stride, a, b, f, out.byteOffset, this.rangeAt);
    return this.range;
  }

  /** Four features' bins in one pass into outs[0..3]; `range` holds least and greatest of each, in turn. */
  gatherFour(
    fs: Int32Array,
    from: number,
    count: number,
    a: number,
    b: number,
    outs: Uint16Array[],
  ): Int32Array {
    const last = count - 1; // fewer than four: the last one is gathered again
    exports.gatherFour(
      this.train.rows,
      this.stride,
      a,
      b,
      fs[from],
      fs[from + Math.min(1, last)],
      fs[from + Math.min(2, last)],
      fs[from + last],
      outs[0].byteOffset,
      outs[1].byteOffset,
      outs[2].byteOffset,
      outs[3].byteOffset,
      this.rangeAt,
    );
    return this.range;
  }

  /**
   * The stable partition of node rows [a, b) by bin ≤ t of feature f (bins, positions, classes and,
   * if `weighted`, weights), or with `toPredict` of the rows to predict [a, b); returns where the
   * right side starts.
   */
  partition(f: number, t: number, a: number, b: number, toPredict: boolean, weighted: boolean): number {
    const k = toPredict ? this.eval : this.train;
    return exports.partition(
      k.rows,
      this.stride,
      f,
      t,
      a,
      b,
      k.idx,
      k.ys,
      k.ws,
      k.spillRows,
      k.spillIdx,
      k.spillY,
      k.spillW,
      weighted ? 1 : 0,
    );
  }

  /** The node the split searches below are over (two classes): its class weights and their sum. */
  node(t0: number, t1: number, n: number): void {
    exports.node(this.train.ys, this.train.ws, t0, t1, n);
  }

  /**
   * The exact split of the node's rows [a, b) (at most SORTED_MAX) over the bins g, one of `bins`, by
   * sorting them: true and the best into `split`, `splitBins`; false when there is none.
   */
  sortedSplit(g: Uint16Array, a: number, b: number): boolean {
    const { keys, tmp, count, out } = this.sortAt;
    return exports.sortedSplit(g.byteOffset, a, b, keys, tmp, count, out) === 1;
  }

  /**
   * The node's rows [a, b) (at most SORTED_MAX) ordered by their bins g, one of `bins`: keys
   * bin << KEY_PLACE_BITS | (k − a), into the returned view (valid until the next call), for a scan in JavaScript.
   */
  sortKeys(g: Uint16Array, a: number, b: number): Int32Array {
    const { keys, tmp, count } = this.sortAt;
    exports.sortKeys(g.byteOffset, a, b, keys, tmp, count);
    return new Int32Array(exports.memory.buffer, keys, b - a);
  }

  /**
   * The same from a class histogram of the bins g[a..b), all within [lo, hi] (at most `histBins`
   * apart): for nodes whose bins are few for their rows.
   */
  histogramSplit(g: Uint16Array, a: number, b: number, lo: number, hi: number): boolean {
    const { hist, out } = this.sortAt;
    return exports.histogramSplit(g.byteOffset, a, b, lo, hi, hist, out) === 1;
  }

  /**
   * The same over feature f's coarse bins (`coarse`) of the node's rows [a, b): 1 (found) or 0 as
   * above, or 2 when the rows all share one coarse bin.
   */
  coarseSplit(f: number, a: number, b: number): number {
    const { hist, out, coarse } = this.sortAt;
    return exports.coarseSplit(coarse, this.p, this.train.idx, f, a, b, hist, out);
  }

  /**
   * The rows k in [a, b) with g[k] ≤ l, g one of `bins`, counted by class (0 and 1) into `into[0]`
   * and `into[1]`.
   */
  countLeft(g: Uint16Array, a: number, b: number, l: number, into: Float64Array): void {
    into[1] = exports.countLeft(g.byteOffset, this.train.ys, a, b, l, this.rangeAt);
    into[0] = this.range[0] - into[1];
  }
}
