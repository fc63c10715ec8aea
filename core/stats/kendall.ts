/**
 * Kendall's tau-b by Knight's algorithm (1966), O(n log n): order the rows by (x, y), then the
 * discordant pairs are the inversions of the y sequence, counted by a four-way trie over the y ranks
 * in WebAssembly (wasm/kendall.ts: every value takes the same steps, so no branch is mispredicted;
 * quicker there than a Fenwick tree, itself quicker than a counting merge sort in V8); ties come from
 * the group sizes.
 * Two columns with few distinct values go through their contingency table instead, O(n + kx·ky).
 * The formula and its order of operations are scipy's `kendalltau`, so figures agree to the last bits.
 */
import { pairs, type Ranking } from "./ranks.ts";
import { inversionsWasm } from "./kendall_wasm.ts";

/** Tables up to this many cells (or one per row) are cheaper than sorting. */
const TABLE_MIN = 1 << 16;

/** Working memory for one worker's pairs, sized once for the row count. */
export class KendallScratch {
  readonly seq: Int32Array;
  readonly group: Int32Array;
  readonly below: Int32Array;
  readonly table: Float64Array;
  constructor(n: number) {
    this.seq = new Int32Array(n);
    this.group = new Int32Array(n);
    this.below = new Int32Array(n);
    this.table = new Float64Array(Math.max(n, TABLE_MIN));
  }
}

/** A column's ranking and where it is present (null: every row), as the pairs read it. */
export interface KendallColumn {
  ranking: Ranking;
  present: Uint8Array | null;
}

/**
 * Tau-b of two columns over the rows both have (NaN when fewer than two or a side is constant there),
 * because tau-b is the Kendall variant that stays in [-1, 1] under ties, as scipy and pandas compute.
 * Each column's ranks are read over the other's present rows as they are: dropping rows changes no
 * order, so the counts need no ranks of their own.
 */
export function kendallTauB(x: KendallColumn, y: KendallColumn, s: KendallScratch): number {
  // Discordance is symmetric in x and y: count inversions of the side with fewer distinct values.
  const swap = y.ranking.distinct > x.ranking.distinct;
  const [a, b] = swap ? [y, x] : [x, y];
  const c = a.ranking.distinct * b.ranking.distinct <= Math.max(a.ranking.rows.length, TABLE_MIN)
    ? fromTable(a, b, s)
    : fromSequence(a, b, s);
  const [tiedX, tiedY] = swap ? [c.tiedB, c.tiedA] : [c.tiedA, c.tiedB];
  const total = (c.m * (c.m - 1)) / 2;
  if (c.m < 2 || tiedX === total || tiedY === total) return NaN;
  const conMinusDis = total - tiedX - tiedY + c.bothTied - 2 * c.discordant;
  const tau = conMinusDis / Math.sqrt(total - tiedX) / Math.sqrt(total - tiedY);
  return Math.min(1, Math.max(-1, tau));
}

/** Over the rows both columns have: their number, and pairs discordant, tied in a, in b, in both. */
interface Counts {
  m: number;
  discordant: number;
  tiedA: number;
  tiedB: number;
  bothTied: number;
}

/**
 * b's ranks in (a, b) order over the shared rows, then inversions: a walk of a's sorted order gathers
 * them (b's gaps written over by the next row, without a branch), and each of a's tie groups is sorted
 * by b. A column without ties (most continuous ones) has no groups to visit.
 */
function fromSequence(a: KendallColumn, b: KendallColumn, s: KendallScratch): Counts {
  const { rows, sortedRank, tiedPairs } = a.ranking;
  const rank = b.ranking.rank, keep = b.present, seq = s.seq, group = s.group;
  let m = 0;
  if (keep === null) {
    for (let k = 0; k < rows.length; k++) seq[k] = rank[rows[k]];
    m = rows.length;
    if (tiedPairs > 0) group.set(sortedRank);
  } else if (tiedPairs === 0) {
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k];
      seq[m] = rank[r];
      m += keep[r];
    }
  } else {
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k];
      seq[m] = rank[r];
      group[m] = sortedRank[k];
      m += keep[r];
    }
  }
  let tiedA = 0, bothTied = 0;
  if (tiedPairs > 0) {
    for (let from = 0, k = 1; k <= m; k++) {
      if (k < m && group[k] === group[from]) continue;
      if (k - from > 1) {
        tiedA += pairs(k - from);
        bothTied += tiedWithin(seq.subarray(from, k));
      }
      from = k;
    }
  }
  const discordant = inversionsWasm(seq.subarray(0, m), b.ranking.distinct);
  return { m, discordant, tiedA, tiedB: tiedOver(b.ranking, a.present), bothTied };
}

/** Pairs of equal values in `group`, which it sorts. */
function tiedWithin(group: Int32Array): number {
  group.sort();
  let tied = 0, run = 1;
  for (let t = 1; t < group.length; t++) {
    if (group[t] === group[t - 1]) run++;
    else {
      tied += pairs(run);
      run = 1;
    }
  }
  return tied + pairs(run);
}

/** A column's tied pairs over the rows `keep` has: its own when nothing is dropped or nothing ties. */
function tiedOver(col: Ranking, keep: Uint8Array | null): number {
  if (keep === null || col.tiedPairs === 0) return col.tiedPairs;
  const { rows, sortedRank } = col;
  let tied = 0, run = 0;
  for (let k = 0; k < rows.length; k++) {
    run += keep[rows[k]];
    if (k + 1 === rows.length || sortedRank[k + 1] !== sortedRank[k]) {
      tied += pairs(run);
      run = 0;
    }
  }
  return tied;
}

/** The counts from the kx × ky contingency table of the shared rows' ranks (its margins give the ties). */
function fromTable(a: KendallColumn, b: KendallColumn, s: KendallScratch): Counts {
  const ka = a.ranking.distinct, kb = b.ranking.distinct;
  const { rows, sortedRank } = a.ranking;
  const rank = b.ranking.rank, keep = b.present;
  const table = s.table.subarray(0, ka * kb).fill(0);
  if (keep === null) { for (let k = 0; k < rows.length; k++) table[sortedRank[k] * kb + rank[rows[k]]]++; }
  else {
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k];
      table[sortedRank[k] * kb + rank[r]] += keep[r];
    }
  }
  // below[j]: rows seen so far (smaller a) with b rank j; a cell pairs discordantly with those above it.
  const below = s.below.subarray(0, kb).fill(0);
  let discordant = 0, bothTied = 0, tiedA = 0;
  for (let i = 0; i < ka; i++) {
    let above = 0, inRow = 0;
    for (let j = kb - 1; j >= 0; j--) {
      const c = table[i * kb + j];
      discordant += c * above;
      bothTied += pairs(c);
      above += below[j];
      inRow += c;
    }
    tiedA += pairs(inRow);
    for (let j = 0; j < kb; j++) below[j] += table[i * kb + j];
  }
  let tiedB = 0, m = 0;
  for (let j = 0; j < kb; j++) {
    tiedB += pairs(below[j]);
    m += below[j];
  }
  return { m, discordant, tiedA, tiedB, bothTied };
}
