/**
 * Typed loader of Kendall's inversion counter (wasm/kendall.ts compiled to kendall.wasm): copies a
 * sequence into the module's linear memory, above its static data, with the tree after it. Each
 * worker isolate has its own instance (the import is per isolate), so workers count at once.
 */
import * as kernel from "./kendall.wasm";
import { Layout } from "./layout.ts";

const exports = kernel as unknown as {
  memory: WebAssembly.Memory;
  heapBase(): number;
  inversions(seq: number, n: number, distinct: number, tree: number): number;
  inversionsTwoLevel(
    seq: number,
    n: number,
    distinct: number,
    low: number,
    start: number,
    tree: number,
  ): number;
};

/** Trees up to this many values stay in cache: one level; above it, two (see wasm/kendall.ts). */
export const ONE_LEVEL = 1 << 16;
/** The lower bits counted by the second level, as in wasm/kendall.ts. */
const LOW = 10;

/** Pairs i < j with seq[i] > seq[j], for values in [0, distinct), counted in WebAssembly. */
export function inversionsWasm(seq: Int32Array, distinct: number): number {
  const n = seq.length, lay = new Layout(exports.heapBase()), at = lay.take(4 * n);
  let count: () => number;
  if (distinct <= ONE_LEVEL) {
    const tree = lay.take(4 * (distinct + 1));
    count = () => exports.inversions(at, n, distinct, tree);
  } else {
    const words = Math.max((distinct >> LOW) + 2, (1 << LOW) + 2);
    const low = lay.take(2 * n), start = lay.take(4 * words), tree = lay.take(4 * words);
    count = () => exports.inversionsTwoLevel(at, n, distinct, low, start, tree);
  }
  lay.fit(exports.memory);
  new Int32Array(exports.memory.buffer, at, n).set(seq);
  return count();
}
