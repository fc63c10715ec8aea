// deno-lint-ignore-file
// AssemblyScript source of Kendall's inversion counter (built by `deno task build:wasm` into
// kendall.wasm): the Fenwick tree of core/stats/kendall.ts, step for step. For trees that stay in
// cache (a column with few distinct values) it runs in 0.64-0.70 of the JavaScript's time, which
// pays for bounds checks on every step; for big trees memory latency dominates and the two are even.
// Memory is laid out by the loader (wasm/kendall_loader.ts) above heapBase().

/** First free byte of linear memory: the loader places the sequence and the tree above it. */
export function heapBase(): usize {
  return __heap_base;
}

/**
 * Pairs k < j with seq[k] > seq[j], for n values in [0, distinct) at `seq`, with distinct + 1 words
 * of tree at `tree`: each value adds how many earlier ones are above it.
 */
export function inversions(seq: usize, n: i32, distinct: i32, tree: usize): f64 {
  memory.fill(tree, 0, (<usize> distinct + 1) << 2);
  let inv: i64 = 0;
  for (let k = 0; k < n; k++) {
    const v = load<i32>(seq + (<usize> k << 2)) + 1;
    let atMost: i32 = 0;
    for (let i = v; i > 0; i &= i - 1) atMost += load<i32>(tree + (<usize> i << 2));
    inv += <i64> (k - atMost);
    for (let i = v; i <= distinct; i += i & -i) {
      const at = tree + (<usize> i << 2);
      store<i32>(at, load<i32>(at) + 1);
    }
  }
  return <f64> inv;
}
