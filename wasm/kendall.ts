// deno-lint-ignore-file
// AssemblyScript source of Kendall's inversion counter (built by `deno task build:wasm` into
// kendall.wasm): a Fenwick tree over the values. Without JavaScript's bounds check on every step it
// takes 0.64-0.70 of the time of the same tree in JavaScript while the tree stays in cache (a column
// with few distinct values); a column of a million distinct values is counted in two levels that each
// fit in L1 (0.81-0.93 of one tree in JavaScript, which waits on memory).
// Memory is laid out by the loader (wasm/kendall_loader.ts) above heapBase().

/** First free byte of linear memory: the loader places the sequence and the tree above it. */
export function heapBase(): usize {
  return __heap_base;
}

/**
 * One step of a Fenwick count over values 1..size at `tree`: how many of the `seen` values before v
 * are above it, then v added to the tree.
 */
function above(tree: usize, size: i32, v: i32, seen: i32): i32 {
  let atMost: i32 = 0;
  for (let i = v; i > 0; i &= i - 1) atMost += load<i32>(tree + (<usize> i << 2));
  for (let i = v; i <= size; i += i & -i) {
    const at = tree + (<usize> i << 2);
    store<i32>(at, load<i32>(at) + 1);
  }
  return seen - atMost;
}

/**
 * Pairs k < j with seq[k] > seq[j], for n values in [0, distinct) at `seq`, with distinct + 1 words
 * of tree at `tree`: each value adds how many earlier ones are above it.
 */
export function inversions(seq: usize, n: i32, distinct: i32, tree: usize): f64 {
  memory.fill(tree, 0, (<usize> distinct + 1) << 2);
  let inv: i64 = 0;
  for (let k = 0; k < n; k++) inv += <i64> above(tree, distinct, load<i32>(seq + (<usize> k << 2)) + 1, k);
  return <f64> inv;
}

/** Lower bits of a value counted by the second level: a tree of 4 KB, in L1. */
const LOW: i32 = 10;
const MASK: i32 = (1 << LOW) - 1;

/**
 * The same count for values too many for a tree in cache, in two levels that each fit: pairs whose
 * values differ above the lower LOW bits are counted by a tree over those upper bits, while each
 * value's lower bits are scattered (stably) into its bucket; pairs within a bucket are then counted by
 * a tree over the lower bits. `low` holds n u16, `start` and `tree` (distinct >> LOW) + 2 and
 * max(that, 2^LOW + 1) words.
 */
export function inversionsTwoLevel(
  seq: usize,
  n: i32,
  distinct: i32,
  low: usize,
  start: usize,
  tree: usize,
): f64 {
  const buckets = ((distinct - 1) >> LOW) + 1;
  memory.fill(start, 0, (<usize> buckets + 1) << 2);
  for (let k = 0; k < n; k++) {
    const at = start + ((<usize> (load<i32>(seq + (<usize> k << 2)) >> LOW) + 1) << 2);
    store<i32>(at, load<i32>(at) + 1);
  }
  for (let b = 1; b <= buckets; b++) {
    const at = start + (<usize> b << 2);
    store<i32>(at, load<i32>(at) + load<i32>(at - 4));
  }
  memory.fill(tree, 0, (<usize> buckets + 1) << 2);
  let inv: i64 = 0;
  for (let k = 0; k < n; k++) {
    const v = load<i32>(seq + (<usize> k << 2)), h = (v >> LOW) + 1;
    inv += <i64> above(tree, buckets, h, k);
    const s = start + (<usize> (h - 1) << 2), pos = load<i32>(s);
    store<i32>(s, pos + 1);
    store<u16>(low + (<usize> pos << 1), <u16> (v & MASK));
  }
  // start[b] is now where bucket b ends.
  let from: i32 = 0;
  for (let b = 0; b < buckets; b++) {
    const to = load<i32>(start + (<usize> b << 2));
    if (to - from > 1) {
      memory.fill(tree, 0, <usize> (MASK + 2) << 2);
      for (let k = from; k < to; k++) {
        inv += <i64> above(tree, MASK + 1, <i32> load<u16>(low + (<usize> k << 1)) + 1, k - from);
      }
    }
    from = to;
  }
  return <f64> inv;
}
