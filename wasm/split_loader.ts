/**
 * Typed loader of the extra trees' split count (wasm/split.ts compiled to split.wasm). The node
 * arrays the count reads (gathered bins and classes) live in the module's linear memory, so a count
 * copies nothing. Each worker isolate has its own instance (the import is per isolate); within one,
 * the memory belongs to the latest arena, since a fit uses one arena from start to end.
 */
import * as kernel from "./split.wasm";
import { Layout } from "./layout.ts";

const exports = kernel as unknown as {
  memory: WebAssembly.Memory;
  heapBase(): number;
  countLeft(g: number, y: number, a: number, b: number, l: number, out: number): number;
};

/** Arenas made so far in this isolate: only the latest owns the memory. */
let made = 0;

/** A training split's node arrays in the kernel's memory: `slots` bin arrays and the classes, `rows` each. */
export class SplitArena {
  readonly bins: Uint16Array[];
  /** The classes of the node rows, in the tree's order. */
  readonly ys: Int32Array;
  private readonly out: Int32Array;
  private readonly id = ++made;
  /** Byte offsets of `ys` and `out`, read once (a view's getter costs a few ns a call). */
  private readonly ysAt: number;
  private readonly outAt: number;

  constructor(rows: number, slots: number) {
    const lay = new Layout(exports.heapBase());
    const out = lay.take(4), ys = lay.take(4 * rows);
    const bins = Array.from({ length: slots }, () => lay.take(2 * rows));
    lay.fit(exports.memory);
    const buf = exports.memory.buffer;
    this.out = new Int32Array(buf, out, 1);
    this.ys = new Int32Array(buf, ys, rows);
    this.bins = bins.map((at) => new Uint16Array(buf, at, rows));
    this.ysAt = ys;
    this.outAt = out;
  }

  /** False once a newer arena took the memory (this one's arrays are then overwritten or detached). */
  get current(): boolean {
    return this.id === made;
  }

  /**
   * Rows k in [a, b) with g[k] ≤ l, g one of this arena's bin arrays, and of them those with ys[k]
   * = 1 (classes 0 and 1): [left, ones] into `into`.
   */
  countLeft(g: Uint16Array, a: number, b: number, l: number, into: Float64Array): void {
    into[1] = exports.countLeft(g.byteOffset, this.ysAt, a, b, l, this.outAt);
    into[0] = this.out[0] - into[1];
  }
}
