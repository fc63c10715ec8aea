// deno-lint-ignore-file
// AssemblyScript source of Kendall's inversion counter (built by `deno task build:wasm` into
// kendall.wasm): a four-way trie over the values' bits. Each node keeps, for each of its four
// children, how many values seen so far went to a child above it; a value walks down from the root,
// two bits per level, adds the count of its child at each level and bumps the counts of the children
// below its own with one SIMD subtraction. Every value takes the same number of steps, so the walk
// has no branch to mispredict: quicker than a Fenwick tree here (whose loops end at a different step
// for each value), and a Fenwick tree in JavaScript is slower still. Values of more than 16 bits
// (ONE_LEVEL_BITS in the loader) are counted in two levels whose tries each fit in cache.
// Memory is laid out by the loader (core/stats/kendall_wasm.ts) above heapBase().

/** First free byte of linear memory: the loader places the sequence and the trie above it. */
export function heapBase(): usize {
  return __heap_base;
}

/** Row d: -1 in the lanes below d (the children a value of digit d passes over), 0 elsewhere. */
const BELOW = memory.data<i32>([0, 0, 0, 0, -1, 0, 0, 0, -1, -1, 0, 0, -1, -1, -1, 0]);

/** Bytes of a trie over values of `bits` bits: 16 per node, (4^levels − 1) / 3 nodes. */
function trieBytes(bits: i32): usize {
  const levels = (bits + 1) >> 1;
  return <usize> 16 * <usize> (((1 << (2 * levels)) - 1) / 3);
}

/**
 * How many of the values already in the trie at `trie` (over `bits` bits) are above v; then v is
 * added. Node i's children are 4i + 1 + digit; its lane d counts the values that went above digit d.
 */
function above(trie: usize, bits: i32, v: i32): i32 {
  let node: usize = 0, count: i32 = 0;
  for (let shift = ((bits + 1) >> 1) * 2 - 2; shift >= 0; shift -= 2) {
    const digit = <usize> ((v >> shift) & 3);
    const at = trie + (node << 4);
    count += load<i32>(at + (digit << 2));
    v128.store(at, i32x4.sub(v128.load(at), v128.load(BELOW + (digit << 4))));
    node = (node << 2) + 1 + digit;
  }
  return count;
}

/** Pairs k < j with seq[k] > seq[j], for n values of `bits` bits at `seq`, with trieBytes(bits) at `trie`. */
export function inversions(seq: usize, n: i32, bits: i32, trie: usize): f64 {
  memory.fill(trie, 0, trieBytes(bits));
  let inv: i64 = 0;
  for (let k = 0; k < n; k++) inv += <i64> above(trie, bits, load<i32>(seq + (<usize> k << 2)));
  return <f64> inv;
}

/**
 * The same count for values too many for one trie in cache, in two levels that each fit: pairs whose
 * values differ in their upper bits are counted by a trie over those, while each value's lower
 * `lowBits` bits (at most 16) are scattered, stably, into its bucket; pairs within a bucket are then
 * counted by a trie over the lower bits. `low` holds n u16, `start` 2^(bits − lowBits) + 1 words and
 * `trie` the larger of the two tries.
 */
export function inversionsTwoLevel(
  seq: usize,
  n: i32,
  bits: i32,
  lowBits: i32,
  low: usize,
  start: usize,
  trie: usize,
): f64 {
  const highBits = bits - lowBits, buckets = 1 << highBits, mask = (1 << lowBits) - 1;
  memory.fill(start, 0, (<usize> buckets + 1) << 2);
  for (let k = 0; k < n; k++) {
    const at = start + ((<usize> (load<i32>(seq + (<usize> k << 2)) >> lowBits) + 1) << 2);
    store<i32>(at, load<i32>(at) + 1);
  }
  for (let b = 1; b <= buckets; b++) {
    const at = start + (<usize> b << 2);
    store<i32>(at, load<i32>(at) + load<i32>(at - 4));
  }
  memory.fill(trie, 0, trieBytes(highBits));
  let inv: i64 = 0;
  for (let k = 0; k < n; k++) {
    const v = load<i32>(seq + (<usize> k << 2)), h = v >> lowBits;
    inv += <i64> above(trie, highBits, h);
    const s = start + (<usize> h << 2), pos = load<i32>(s);
    store<i32>(s, pos + 1);
    store<u16>(low + (<usize> pos << 1), <u16> (v & mask));
  }
  // start[b] is now where bucket b ends.
  let from: i32 = 0;
  for (let b = 0; b < buckets; b++) {
    const to = load<i32>(start + (<usize> b << 2));
    if (to - from > 1) {
      memory.fill(trie, 0, trieBytes(lowBits));
      for (let k = from; k < to; k++) {
        inv += <i64> above(trie, lowBits, <i32> load<u16>(low + (<usize> k << 1)));
      }
    }
    from = to;
  }
  return <f64> inv;
}
