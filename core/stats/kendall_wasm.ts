/**
 * Typed loader of Kendall's inversion counter (wasm/kendall.ts compiled to kendall.wasm): copies a
 * sequence into the module's linear memory, above its static data, with the trie after it. Each
 * worker isolate has its own instance (the import is per isolate), so workers count at once.
 */
import * as kernel from "../../wasm/kendall.wasm";
import { Layout } from "../../wasm/layout.ts";

const exports = kernel as unknown as {
  memory: WebAssembly.Memory;
  heapBase(): number;
  inversions(seq: number, n: number, bits: number, trie: number): number;
  inversionsTwoLevel(
    seq: number,
    n: number,
    bits: number,
    lowBits: number,
    low: number,
    start: number,
    trie: number,
  ): number;
};

/** Values of up to this many bits are counted by one trie (350 KB, in L2); more bits, two levels. */
const ONE_LEVEL_BITS = 16;
/** The most distinct values counted by one trie. */
export const ONE_LEVEL = 2 ** ONE_LEVEL_BITS;

/** Bytes of a trie over values of `bits` bits, as wasm/kendall.ts lays it out. */
const trieBytes = (bits: number) => 16 * (4 ** Math.ceil(bits / 2) - 1) / 3;

/** Pairs i < j with seq[i] > seq[j], for values in [0, distinct), counted in WebAssembly. */
export function inversionsWasm(seq: Int32Array, distinct: number): number {
  const n = seq.length, bits = Math.max(1, 32 - Math.clz32(Math.max(1, distinct) - 1));
  const lay = new Layout(exports.heapBase()), at = lay.take(4 * n);
  let count: () => number;
  if (bits <= ONE_LEVEL_BITS) {
    const trie = lay.take(trieBytes(bits));
    count = () => exports.inversions(at, n, bits, trie);
  } else {
    // Even low bits fill whole trie levels; the high bits get the rest (at most 15 for 31 bits).
    const lowBits = 2 * Math.ceil(bits / 4);
    const low = lay.take(2 * n), start = lay.take(4 * (2 ** (bits - lowBits) + 1));
    const trie = lay.take(Math.max(trieBytes(bits - lowBits), trieBytes(lowBits)));
    count = () => exports.inversionsTwoLevel(at, n, bits, lowBits, low, start, trie);
  }
  lay.fit(exports.memory);
  new Int32Array(exports.memory.buffer, at, n).set(seq);
  return count();
}
