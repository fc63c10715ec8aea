/** Ordering a tree node's rows by bin in linear time, for the exact split search of mid-sized nodes. */

/** Counts into exclusive prefix sums, in place. */
function prefixSums(count: Int32Array): void {
  let sum = 0;
  for (let d = 0; d < count.length; d++) {
    const c = count[d];
    count[d] = sum;
    sum += c;
  }
}

/**
 * Keys `bin << posBits | k` for k = 0..m−1 ordered by the 16-bit bin g[a + k] (two counting passes
 * over its bytes, stable), because a comparison sort costs three times as much at these sizes.
 * `tmp` holds m entries, `count` 256.
 */
export function radixByBin(
  g: Uint16Array,
  a: number,
  m: number,
  posBits: number,
  keys: Int32Array,
  tmp: Int32Array,
  count: Int32Array,
): void {
  count.fill(0);
  for (let k = 0; k < m; k++) count[g[a + k] & 255]++;
  prefixSums(count);
  for (let k = 0; k < m; k++) tmp[count[g[a + k] & 255]++] = (g[a + k] << posBits) | k;
  count.fill(0);
  for (let k = 0; k < m; k++) count[tmp[k] >>> (posBits + 8)]++;
  prefixSums(count);
  for (let k = 0; k < m; k++) keys[count[tmp[k] >>> (posBits + 8)]++] = tmp[k];
}
