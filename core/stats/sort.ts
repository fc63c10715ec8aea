/**
 * Ordering rows by value without a comparator: a least-significant-digit radix sort of the doubles'
 * 64-bit keys. Three 11-bit passes order them by the upper 32 bits (sign, exponent and 20 bits of
 * mantissa); the few runs that share those and differ below are then ordered by the lower 32 bits.
 * Ranking a million-row column this way is much quicker than a callback sort, and quicker than eight
 * 8-bit passes over all 64 bits, which keeps big correlations fast.
 */

/** Below this many rows a comparator sort is quicker than the histogram passes. */
const SMALL = 512;

/** Rows in value order, with the sort keys in the same order: equal keys ⇔ equal values. */
export interface SortedRows {
  rows: Uint32Array;
  hi: Uint32Array;
  lo: Uint32Array;
}

/**
 * Row indices of the present (non-NaN) values of `v`, ordered by value, ties in row order, so every
 * rank, tie group and pairwise walk of the correlations can be read off one pass over this order.
 */
export function argsortPresent(v: Float64Array): SortedRows {
  let m = 0;
  for (let i = 0; i < v.length; i++) if (v[i] === v[i]) m++;
  let ids = new Uint32Array(m);
  for (let i = 0, k = 0; i < v.length; i++) if (v[i] === v[i]) ids[k++] = i;
  if (m < SMALL) {
    ids.sort((a, b) => v[a] - v[b] || a - b);
    return withKeys(v, ids);
  }

  // Doubles as unsigned 64-bit keys in the same order: negative numbers have every bit flipped,
  // others only the sign bit. -0 and +0 end up adjacent (and compare equal where ties are grouped).
  const f = new Float64Array(m);
  for (let k = 0; k < m; k++) f[k] = v[ids[k]] + 0; // -0 becomes +0: equal values, equal keys
  const bits = new Uint32Array(f.buffer);
  let hi = new Uint32Array(m);
  let lo = new Uint32Array(m);
  const count = new Uint32Array(3 * DIGITS);
  for (let k = 0; k < m; k++) {
    let h = bits[2 * k + 1];
    let l = bits[2 * k];
    if (h & 0x80000000) {
      h = ~h >>> 0;
      l = ~l >>> 0;
    } else h = (h | 0x80000000) >>> 0;
    hi[k] = h;
    lo[k] = l;
    count[h & MASK]++;
    count[DIGITS + ((h >>> 11) & MASK)]++;
    count[2 * DIGITS + (h >>> 22)]++;
  }
  let hi2 = new Uint32Array(m);
  let lo2 = new Uint32Array(m);
  let ids2 = new Uint32Array(m);
  for (let pass = 0; pass < 3; pass++) {
    const base = pass * DIGITS;
    const shift = pass * 11;
    if (count[base + ((hi[0] >>> shift) & MASK)] === m) continue; // one digit for all: nothing moves
    let sum = 0;
    for (let d = 0; d < DIGITS; d++) {
      const c = count[base + d];
      count[base + d] = sum;
      sum += c;
    }
    for (let k = 0; k < m; k++) {
      const pos = count[base + ((hi[k] >>> shift) & MASK)]++;
      hi2[pos] = hi[k];
      lo2[pos] = lo[k];
      ids2[pos] = ids[k];
    }
    [hi, hi2] = [hi2, hi];
    [lo, lo2] = [lo2, lo];
    [ids, ids2] = [ids2, ids];
  }
  orderRunsByLow(hi, lo, ids, lo2, ids2);
  return { rows: ids, hi, lo };
}

/** Digits of the radix passes over the upper 32 bits: 11, 11 and 10 bits. */
const DIGITS = 2048;
const MASK = DIGITS - 1;
/** Runs up to this long are ordered by insertion; longer ones by a native sort of numeric keys. */
const INSERTION = 16;
/** A run's position fits below its lower key bits in a double's 53 bits when the run is shorter. */
const POSITIONS = 2 ** 21;

/**
 * Orders each run of equal upper keys by the lower ones, stably (equal values keep row order), with
 * `loTmp`/`idsTmp` as room for one run. A continuous column has many short runs (values that agree in
 * their first 20 bits of mantissa); a column of close values, such as timestamps, has long ones.
 */
function orderRunsByLow(
  hi: Uint32Array,
  lo: Uint32Array,
  ids: Uint32Array,
  loTmp: Uint32Array,
  idsTmp: Uint32Array,
): void {
  const m = hi.length;
  let keys: Float64Array | null = null;
  for (let s = 0; s < m;) {
    let e = s + 1;
    let differ = false;
    while (e < m && hi[e] === hi[s]) {
      if (lo[e] !== lo[s]) differ = true;
      e++;
    }
    const r = e - s;
    if (differ && r <= INSERTION) {
      for (let k = s + 1; k < e; k++) {
        const kl = lo[k], ki = ids[k];
        let j = k - 1;
        while (j >= s && lo[j] > kl) {
          lo[j + 1] = lo[j];
          ids[j + 1] = ids[j];
          j--;
        }
        lo[j + 1] = kl;
        ids[j + 1] = ki;
      }
    } else if (differ) {
      // Keys lo·2^21 + position are exact in a double and sort stably by value; a longer run
      // (2 million values agreeing in their upper 32 bits) takes a comparator sort.
      const order = new Float64Array(r);
      if (r < POSITIONS) {
        keys ??= new Float64Array(m);
        const sub = keys.subarray(0, r);
        for (let k = 0; k < r; k++) sub[k] = lo[s + k] * POSITIONS + k;
        sub.sort();
        for (let k = 0; k < r; k++) order[k] = sub[k] % POSITIONS;
      } else {
        for (let k = 0; k < r; k++) order[k] = k;
        order.sort((a, b) => lo[s + a] - lo[s + b] || a - b);
      }
      for (let k = 0; k < r; k++) {
        loTmp[k] = lo[s + order[k]];
        idsTmp[k] = ids[s + order[k]];
      }
      lo.set(loTmp.subarray(0, r), s);
      ids.set(idsTmp.subarray(0, r), s);
    }
    s = e;
  }
}

/** Keys for rows already in order (the small case). */
function withKeys(v: Float64Array, rows: Uint32Array): SortedRows {
  const m = rows.length;
  const hi = new Uint32Array(m);
  const lo = new Uint32Array(m);
  const one = new Float64Array(1);
  const bits = new Uint32Array(one.buffer);
  for (let k = 0; k < m; k++) {
    one[0] = v[rows[k]] + 0;
    hi[k] = bits[1];
    lo[k] = bits[0];
  }
  return { rows, hi, lo };
}
