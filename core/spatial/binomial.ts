/**
 * Binomial(c, p) samplers in O(1) per draw: Walker/Vose alias tables, one per distinct signature size,
 * built once per audit (p = P/N is the same for every signature and world). Exact in distribution up to
 * the double rounding of the probabilities: the support is cut only where the pmf falls below 1e-20 of
 * its mode, a mass far below the 2^-53 resolution of the uniform draws. Both Monte Carlo kernels
 * (TypeScript and WebAssembly) draw from these flat arrays with the same float operations.
 */

/** Alias tables, concatenated: table t covers values lo[t] .. lo[t] + size[t] - 1. */
export interface AliasTables {
  /** Table of each signature. */
  tableOf: Int32Array;
  start: Int32Array;
  size: Int32Array;
  lo: Int32Array;
  /** Acceptance probability of each cell, and the cell's alias (as an offset from lo). */
  prob: Float64Array;
  alias: Int32Array;
}

const CUT = 1e-20;

/** Unnormalised pmf of Binomial(c, p) around its mode, cut where it falls below CUT of the mode. */
function pmf(c: number, p: number): { lo: number; w: number[] } {
  const q = 1 - p, up = p / q, down = q / p;
  const mode = Math.min(c, Math.floor((c + 1) * p));
  const hi: number[] = [1];
  for (let k = mode, w = 1; k < c;) {
    w *= ((c - k) / (k + 1)) * up;
    if (w < CUT) break;
    hi.push(w);
    k++;
  }
  const low: number[] = [];
  let lo = mode;
  for (let k = mode, w = 1; k > 0;) {
    w *= (k / (c - k + 1)) * down;
    if (w < CUT) break;
    low.push(w);
    k--;
    lo = k;
  }
  return { lo, w: low.reverse().concat(hi) };
}

/** Vose's alias method over weights w (any positive scale). */
function vose(w: number[], prob: Float64Array, alias: Int32Array, at: number): void {
  const m = w.length;
  let sum = 0;
  for (const x of w) sum += x;
  const scaled = w.map((x) => (x * m) / sum);
  const small: number[] = [], large: number[] = [];
  for (let i = m - 1; i >= 0; i--) (scaled[i] < 1 ? small : large).push(i);
  while (small.length && large.length) {
    const s = small.pop()!, l = large.pop()!;
    prob[at + s] = scaled[s];
    alias[at + s] = l;
    scaled[l] = scaled[l] + scaled[s] - 1;
    (scaled[l] < 1 ? small : large).push(l);
  }
  for (const i of large) (prob[at + i] = 1, alias[at + i] = i);
  for (const i of small) (prob[at + i] = 1, alias[at + i] = i);
}

/** One alias table per distinct count in `counts`, for success probability p in (0, 1). */
export function binomialTables(counts: Int32Array, p: number): AliasTables {
  const byCount = new Map<number, number>();
  const dists: { lo: number; w: number[] }[] = [];
  const tableOf = new Int32Array(counts.length);
  for (let s = 0; s < counts.length; s++) {
    let t = byCount.get(counts[s]);
    if (t === undefined) {
      t = dists.length;
      byCount.set(counts[s], t);
      dists.push(pmf(counts[s], p));
    }
    tableOf[s] = t;
  }
  const nt = dists.length;
  const start = new Int32Array(nt), size = new Int32Array(nt), lo = new Int32Array(nt);
  let total = 0;
  for (let t = 0; t < nt; t++) {
    start[t] = total;
    size[t] = dists[t].w.length;
    lo[t] = dists[t].lo;
    total += size[t];
  }
  const prob = new Float64Array(total), alias = new Int32Array(total);
  for (let t = 0; t < nt; t++) vose(dists[t].w, prob, alias, start[t]);
  return { tableOf, start, size, lo, prob, alias };
}

/**
 * One draw from table t given a uniform u in [0, 1): the cell is floor(u·size), accepted when the
 * fractional part is below its probability. The kernels inline exactly this.
 */
export function aliasDraw(tb: AliasTables, t: number, u: number): number {
  const m = tb.size[t];
  const x = u * m;
  let i = Math.floor(x);
  if (i >= m) i = m - 1;
  const f = x - i, at = tb.start[t] + i;
  return tb.lo[t] + (f < tb.prob[at] ? i : tb.alias[at]);
}
