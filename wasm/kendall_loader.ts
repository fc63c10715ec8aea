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
};

/** Pairs i < j with seq[i] > seq[j], for values in [0, distinct), counted in WebAssembly. */
export function inversionsWasm(seq: Int32Array, distinct: number): number {
  const at = (exports.heapBase() + 15) & ~15;
  const tree = at + seq.byteLength, end = tree + 4 * (distinct + 1);
  const mem = exports.memory;
  if (end > mem.buffer.byteLength) mem.grow(Math.ceil((end - mem.buffer.byteLength) / 65536));
  new Int32Array(mem.buffer, at, seq.length).set(seq);
  return exports.inversions(at, seq.length, distinct, tree);
}
