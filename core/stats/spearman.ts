/**
 * Spearman's rho as pandas computes it: Pearson on average ranks (ties share the mean of their
 * positions), ranked within the rows where both columns are present. Ranks over m rows always have
 * mean (m + 1) / 2, so centring is exact; a pair with gaps shifts each column's ranks by the rows it
 * leaves out, which keeps every rank and mean an exact multiple of ½.
 */
import type { Ranking } from "./ranks.ts";

/**
 * Average ranks of the column's rows minus their mean (n + 1) / 2, written to `out[row]`: read off
 * the sorted order, so ties share the mean of their positions.
 */
export function centredRanks(col: Ranking, out: Float64Array): Float64Array {
  const { rows, sortedRank } = col;
  const n = rows.length;
  const mean = (n + 1) / 2;
  for (let i = 0; i < n;) {
    let j = i + 1;
    while (j < n && sortedRank[j] === sortedRank[i]) j++;
    const d = (i + j + 1) / 2 - mean;
    for (let t = i; t < j; t++) out[rows[t]] = d;
    i = j;
  }
  return out;
}

/** A column ready for Spearman pairs: its ranking and centred ranks (0 in gaps). */
export interface SpearmanColumn {
  ranking: Ranking;
  present: Uint8Array | null;
  /** The rows where the column is missing; null when it has no gap. */
  gaps: Uint32Array | null;
  centred: Float64Array;
}

/**
 * The dense ranks of the rows a pair leaves out of one column (present there, missing in the other),
 * sorted, and `first[b]` the index of the first one in bucket b or above (bucket = rank >> shift,
 * about sixteen buckets per left-out row, so most hold none), so the left-out rows below a rank are
 * found in a small table plus, rarely, a search within one bucket.
 */
interface LeftOut {
  count: number;
  sorted: Int32Array;
  first: Int32Array;
  shift: number;
}

/** The rows of `col` that the other column's gaps drop (those where `col` is present), as a `LeftOut`. */
function leftOut(col: SpearmanColumn, otherGaps: Uint32Array): LeftOut {
  const { rank, distinct } = col.ranking;
  const ranks: number[] = [];
  for (const r of otherGaps) if (col.present === null || col.present[r] === 1) ranks.push(rank[r]);
  const sorted = Int32Array.from(ranks).sort();
  let shift = 0;
  while ((distinct >> shift) > 16 * Math.max(1, ranks.length)) shift++;
  const first = new Int32Array((distinct >> shift) + 2);
  for (let b = 0, i = 0; b < first.length; b++) {
    while (i < sorted.length && sorted[i] >> shift < b) i++;
    first[b] = i;
  }
  return { count: ranks.length, sorted, first, shift };
}

/** The first index in sorted[lo, hi) whose value is at least v (hi when none is). */
function lowerBound(sorted: Int32Array, lo: number, hi: number, v: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The centred ranks of `col` over the rows that `other` (a column with gaps) also has, in `out` (0
 * elsewhere), in one pass in row order: over fewer rows the mean moves down by half the rows left out,
 * and each rank by one for each left-out row below it and by a half for each tied with it (average
 * ranks). Multiples of ½ throughout, so the shifted ranks are exact. Walking the sorted order instead
 * reads at random.
 */
function recentre(col: SpearmanColumn, other: SpearmanColumn, out: Float64Array): Float64Array {
  const keep = other.present!;
  const { count, sorted, first, shift } = leftOut(col, other.gaps!);
  const { rank } = col.ranking, { centred, present } = col;
  for (let r = 0; r < out.length; r++) {
    if (keep[r] === 0 || (present !== null && present[r] === 0)) {
      out[r] = 0;
      continue;
    }
    const v = rank[r], lo = first[v >> shift], hi = first[(v >> shift) + 1];
    // Below v: `below` left-out rows; tied with it: upTo − below. A bucket of one rank needs no search.
    let below = lo, upTo = hi;
    if (shift > 0 && lo < hi) {
      below = lowerBound(sorted, lo, hi, v);
      upTo = lowerBound(sorted, below, hi, v + 1);
    }
    out[r] = centred[r] + (count - below - upTo) / 2;
  }
  return out;
}

/** Rows summed exactly before their sum is added to the running total. */
const BLOCK = 1024;

/**
 * Spearman's rho of two prepared columns over the rows both have (NaN when a side has no spread
 * there): Pearson of their centred ranks, each side ranked again over those rows when the other has
 * gaps (`scratch` holds the two re-ranked columns).
 */
export function spearmanPair(
  a: SpearmanColumn,
  b: SpearmanColumn,
  scratch: [Float64Array, Float64Array],
): number {
  const x = b.present ? recentre(a, b, scratch[0]) : a.centred;
  const y = a.present ? recentre(b, a, scratch[1]) : b.centred;
  // Centred ranks are multiples of ½, so their products are exact and so is a sum of BLOCK of them
  // (below 2^53 for up to a few million rows): rounding is left to the few block sums.
  let cross = 0, ssX = 0, ssY = 0;
  for (let t0 = 0; t0 < x.length; t0 += BLOCK) {
    let c = 0, sx = 0, sy = 0;
    for (let t = t0; t < Math.min(t0 + BLOCK, x.length); t++) {
      c += x[t] * y[t];
      sx += x[t] * x[t];
      sy += y[t] * y[t];
    }
    cross += c;
    ssX += sx;
    ssY += sy;
  }
  const r = cross / Math.sqrt(ssX * ssY);
  return r === r && Number.isFinite(r) ? Math.min(1, Math.max(-1, r)) : NaN;
}
