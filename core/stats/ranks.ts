/**
 * Ranks read off a column's sorted order, once per column. pandas ranks a pair's columns over the
 * rows where both are present; dropping rows changes no order, so the pairs read these ranks over
 * their shared rows (Kendall) or shift them by the rows left out (Spearman) rather than rank again.
 */
import { argsortPresent } from "./sort.ts";
import { type Alloc, localAlloc } from "../memory.ts";

/** A column's rows in value order with dense ranks (0, 1, 2... one per distinct value). */
export interface Ranking {
  /** Rows in value order (ties in row order). */
  rows: Uint32Array;
  /** Dense rank by position in `rows`: sequential reads find the tie groups. */
  sortedRank: Int32Array;
  /** Dense rank by row; 0 in the column's gaps, so branch-free reads of any row stay in range. */
  rank: Int32Array;
  distinct: number;
  /** Pairs of rows with equal values: Σ t(t-1)/2 over tie groups. */
  tiedPairs: number;
}

/** t(t−1)/2: the pairs among t rows (tied pairs of a group of t equal values). */
export const pairs = (t: number) => (t * (t - 1)) / 2;

/** The ranking of a column's present rows, computed once per column and shared by its pairs. */
export function rankColumn(values: Float64Array, alloc: Alloc = localAlloc): Ranking {
  const sorted = argsortPresent(values);
  const { hi, lo } = sorted;
  const m = sorted.rows.length;
  const rows = new Uint32Array(alloc(4 * m));
  rows.set(sorted.rows);
  const sortedRank = new Int32Array(alloc(4 * m));
  const rank = new Int32Array(alloc(4 * values.length));
  let g = -1;
  let run = 0;
  let tiedPairs = 0;
  for (let i = 0; i < m; i++) {
    if (i === 0 || hi[i] !== hi[i - 1] || lo[i] !== lo[i - 1]) {
      tiedPairs += pairs(run);
      run = 0;
      g++;
    }
    run++;
    sortedRank[i] = g;
    rank[rows[i]] = g;
  }
  tiedPairs += pairs(run);
  return { rows, sortedRank, rank, distinct: g + 1, tiedPairs };
}
