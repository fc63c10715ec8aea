/**
 * Stable, branch-free partitions of boosting's leaves (the trees' node rows have their own, in
 * wasm/tree_split.ts). Rows stay in ascending order, so every later gather
 * over a node sweeps the feature columns forward (the prefetcher rewards it; a swapping partition
 * scatters rows and costs the forests more), and the side of each row is computed,
 * not branched on: at most nodes it is a coin flip the branch predictor would miss half the time.
 */

/**
 * Reorders positions [a, b) of `order` (positions into `rows`) so those whose row has bin ≤ t come
 * first; returns where the rest starts. `spill` needs b − a entries.
 */
export function partitionPositions(
  bins: Uint8Array | Uint16Array,
  col: number,
  t: number,
  order: Uint32Array,
  rows: Uint32Array,
  a: number,
  b: number,
  spill: Uint32Array,
): number {
  let i = a, r = 0;
  for (let k = a; k < b; k++) {
    const pos = order[k];
    const left = 1 - ((t - bins[col + rows[pos]]) >>> 31);
    order[i] = pos; // i ≤ k: what it overwrites was read already
    spill[r] = pos;
    i += left;
    r += 1 - left;
  }
  for (let k = 0; k < r; k++) order[i + k] = spill[k];
  return i;
}
