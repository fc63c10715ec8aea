// deno-lint-ignore-file
// AssemblyScript source of the extra trees' split count (built by `deno task build:wasm` into
// split.wasm): how many of a node's rows fall left of a drawn threshold, and how many of those are of
// class 1, eight rows per SIMD step. The same count in JavaScript is a fifth of an extra-trees fit.
// Memory is laid out by the loader (wasm/split_loader.ts) above heapBase().

/** First free byte of linear memory: the loader places the node arrays above it. */
export function heapBase(): usize {
  return __heap_base;
}

/**
 * Rows k in [a, b) with bin g[k] ≤ l (u16 bins at `g`), written to `out` as an i32; returns how many
 * of them have y[k] = 1 (i32 classes 0 or 1 at `y`).
 */
export function countLeft(g: usize, y: usize, a: i32, b: i32, l: i32, out: usize): i32 {
  const limit = i16x8.splat(<i16> l);
  let left = i32x4.splat(0), ones = i32x4.splat(0);
  let k = a;
  for (; k + 8 <= b; k += 8) {
    // Lanes of all ones where bin ≤ l: minus one per row on the left, and a mask over y.
    const go = i16x8.le_u(v128.load(g + (<usize> k << 1)), limit);
    const low = i32x4.extend_low_i16x8_s(go), high = i32x4.extend_high_i16x8_s(go);
    left = i32x4.add(left, i32x4.add(low, high));
    const y0 = v128.load(y + (<usize> k << 2)), y1 = v128.load(y + (<usize> (k + 4) << 2));
    ones = i32x4.add(ones, i32x4.add(v128.and(low, y0), v128.and(high, y1)));
  }
  let nLeft = -(i32x4.extract_lane(left, 0) + i32x4.extract_lane(left, 1) +
    i32x4.extract_lane(left, 2) + i32x4.extract_lane(left, 3));
  let nOnes = i32x4.extract_lane(ones, 0) + i32x4.extract_lane(ones, 1) + i32x4.extract_lane(ones, 2) +
    i32x4.extract_lane(ones, 3);
  for (; k < b; k++) {
    const go = <i32> (<i32> load<u16>(g + (<usize> k << 1)) <= l);
    nLeft += go;
    nOnes += go & load<i32>(y + (<usize> k << 2));
  }
  store<i32>(out, nLeft);
  return nOnes;
}
