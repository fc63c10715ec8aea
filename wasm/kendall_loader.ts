/**
 * Typed loader of Kendall's inversion counter (wasm/kendall.ts compiled to kendall.wasm): copies a
 * sequence into the module's linear memory, above its static data, with the tree after it. Each
 * worker isolate has its own instance (the import is per isolate), so workers count at once.
 */
import * as kernel from "./kendall.wasm";

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

/** Room for `bytes` more above heapBase, growing the memory when needed; returns where it starts. */
function reserve(bytes: number): number {
  const at = (exports.heapBase() + 15) & ~15, mem = exports.memory;
  if (at + bytes > mem.buffer.byteLength) mem.grow(Math.ceil((at + bytes - mem.buffer.byteLength) / 65536));
  return at;
}

/** Pairs i < j with seq[i] > seq[j], for values in [0, distinct), counted in WebAssembly. */
export function inversionsWasm(seq: Int32Array, distinct: number): number {
  const n = seq.length;
  if (distinct <= ONE_LEVEL) {
    const at = reserve(4 * n + 4 * (distinct + 1));
    new Int32Array(exports.memory.buffer, at, n).set(seq);
    return exports.inversions(at, n, distinct, at + 4 * n);
  }
  const words = Math.max((distinct >> LOW) + 2, (1 << LOW) + 2);
  const at = reserve(4 * n + 2 * n + 8 * words + 16);
  new Int32Array(exports.memory.buffer, at, n).set(seq);
  const low = at + 4 * n, start = (low + 2 * n + 15) & ~15, tree = start + 4 * words;
  return exports.inversionsTwoLevel(at, n, distinct, low, start, tree);
}
