/**
 * Ranks read off a column's sorted order, optionally over a subset of rows. pandas ranks a pair's
 * columns over the rows where both are present, so a pair with gaps needs its own ranks; walking the
 * column's one sorted order while skipping the other column's gaps gives them in O(n), no new sort.
 */
import { argsortPresent } from "./sort.ts";
import { type Alloc, localAlloc } from "../memory.ts";

/** A column's rows in value order with dense ranks (0, 1, 2... one per distinct value). */
export interface Ranking {
  /** Rows in value order (ties in row order). */
  rows: Uint32Array;
  /** Dense rank by position in `rows`: sequential reads find the tie groups. */
  sortedRank: Int32Array;
  /** Dense rank by row (only rows in `rows` are meaningful). */
  rank: Int32Array;
  distinct: number;
  /** Pairs of rows with equal values: Σ t(t-1)/2 over tie groups. */
  tiedPairs: number;
}

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
      tiedPairs += (run * (run - 1)) / 2;
      run = 0;
      g++;
    }
    run++;
    sortedRank[i] = g;
    rank[rows[i]] = g;
  }
  tiedPairs += (run * (run - 1)) / 2;
  return { rows, sortedRank, rank, distinct: g + 1, tiedPairs };
}

/** Buffers for one ranking over kept rows, sized once for the row count. */
export class RankingBuffers {
  readonly rows: Uint32Array;
  readonly sortedRank: Int32Array;
  readonly rank: Int32Array;
  constructor(n: number) {
    this.rows = new Uint32Array(n);
    this.sortedRank = new Int32Array(n);
    this.rank = new Int32Array(n);
  }
}

/** The ranking of a column restricted to the kept rows (dense ranks renumbered), in `buf`. */
export function restrict(col: Ranking, keep: Uint8Array, buf: RankingBuffers): Ranking {
  let m = 0;
  let g = -1;
  let prevGroup = -1;
  let run = 0;
  let tiedPairs = 0;
  for (let i = 0; i < col.rows.length; i++) {
    const r = col.rows[i];
    if (keep[r] !== 1) continue;
    const group = col.sortedRank[i];
    if (group !== prevGroup) {
      tiedPairs += (run * (run - 1)) / 2;
      run = 0;
      g++;
      prevGroup = group;
    }
    run++;
    buf.rows[m] = r;
    buf.sortedRank[m++] = g;
    buf.rank[r] = g;
  }
  tiedPairs += (run * (run - 1)) / 2;
  return {
    rows: buf.rows.subarray(0, m),
    sortedRank: buf.sortedRank.subarray(0, m),
    rank: buf.rank,
    distinct: g + 1,
    tiedPairs,
  };
}
