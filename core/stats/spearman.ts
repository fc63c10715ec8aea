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
 * How many of the rows a pair leaves out of one column (present there, missing in the other) rank below
 * each dense rank: `below[v]` for v in [0, distinct], into `scratch` (at least distinct + 1 long), so
 * the rows left out below a rank, and those tied with it (below[v + 1] − below[v]), are two reads.
 */
function leftOutBelow(col: SpearmanColumn, otherGaps: Uint32Array, scratch: Int32Array): Int32Array {
  const { rank, distinct } = col.ranking;
  const below = scratch.subarray(0, distinct + 1).fill(0);
  for (const r of otherGaps) if (col.present === null || col.present[r] === 1) below[rank[r] + 1]++;
  for (let v = 1; v <= distinct; v++) below[v] += below[v - 1];
  return below;
}

/**
 * The centred ranks of `col` over the rows that `other` (a column with gaps) also has, in `out` (0
 * elsewhere), in one pass in row order: over fewer rows the mean moves down by half the rows left out,
 * and each rank by one for each left-out row below it and by a half for each tied with it (average
 * ranks). Multiples of ½ throughout, so the shifted ranks are exact. Walking the sorted order instead
 * reads at random.
 */
function recentre(col: SpearmanColumn, other: SpearmanColumn, out: Float64Array, scratch: Int32Array) {
  const keep = other.present!;
  const below = leftOutBelow(col, other.gaps!, scratch), count = below[col.ranking.distinct];
  const { rank } = col.ranking, { centred, present } = col;
  for (let r = 0; r < out.length; r++) {
    const v = rank[r];
    // left out below v: below[v]; up to and with v: below[v + 1]
    const shifted = centred[r] + (count - below[v] - below[v + 1]) / 2;
    out[r] = keep[r] === 0 || (present !== null && present[r] === 0) ? 0 : shifted;
  }
  return out;
}

/** Working memory of a worker's Spearman pairs, sized once for the row count. */
export class SpearmanScratch {
  /** The two columns' centred ranks over a pair's shared rows. */
  readonly x: Float64Array;
  readonly y: Float64Array;
  /** Left-out rows below each rank (leftOutBelow); a column has at most n distinct values. */
  readonly below: Int32Array;
  constructor(n: number) {
    this.x = new Float64Array(n);
    this.y = new Float64Array(n);
    this.below = new Int32Array(n + 1);
  }
}

/** Rows summed exactly before their sum is added to the running total. */
const BLOCK = 1024;

/**
 * Spearman's rho of two prepared columns over the rows both have (NaN when a side has no spread
 * there): Pearson of their centred ranks, each side ranked again over those rows when the other has
 * gaps (in `scratch`).
 */
export function spearmanPair(
  a: SpearmanColumn,
  b: SpearmanColumn,
  scratch: SpearmanScratch,
): number {
  const x = b.present ? recentre(a, b, scratch.x, scratch.below) : a.centred;
  const y = a.present ? recentre(b, a, scratch.y, scratch.below) : b.centred;
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
