/**
 * Spearman's rho as pandas computes it: Pearson on average ranks (ties share the mean of their
 * positions), ranked within the rows where both columns are present. Ranks over m rows always have
 * mean (m + 1) / 2, so centring is exact and one pass over a column's sorted order gives a pair with
 * gaps its new ranks and their cross products at once.
 */
import type { Keep, Ranking } from "./ranks.ts";

/** What a walk over a ranking's kept rows adds up. */
interface Walk {
  /** Σ (rank − mean)² over the kept rows. */
  ss: number;
  /** Σ (rank − mean) · other[row] over the kept rows (0 without `other`). */
  cross: number;
}

/**
 * Average ranks of the kept rows of `col` (m of them) minus their mean (m + 1) / 2, written to
 * `out[row]` when given and multiplied into `other[row]` when given.
 */
export function centredRanks(
  col: Ranking,
  keep: Keep,
  m: number,
  out: Float64Array | null,
  other: Float64Array | null,
): Walk {
  const { rows, sortedRank } = col;
  const n = rows.length;
  const mean = (m + 1) / 2;
  let pos = 0;
  let ss = 0;
  let cross = 0;
  let i = 0;
  while (i < n) {
    const g = sortedRank[i];
    if (i + 1 === n || sortedRank[i + 1] !== g) {
      // A value without ties (most of a continuous column): its own rank.
      const r = rows[i++];
      if (keep !== null && keep[r] !== 1) continue;
      const d = ++pos - mean;
      ss += d * d;
      if (out !== null) out[r] = d;
      if (other !== null) cross += d * other[r];
      continue;
    }
    let j = i;
    let c = 0;
    while (j < n && sortedRank[j] === g) {
      if (keep === null || keep[rows[j]] === 1) c++;
      j++;
    }
    const d = pos + (c + 1) / 2 - mean;
    ss += c * d * d;
    for (let t = i; t < j; t++) {
      const r = rows[t];
      if (keep !== null && keep[r] !== 1) continue;
      if (out !== null) out[r] = d;
      if (other !== null) cross += d * other[r];
    }
    pos += c;
    i = j;
  }
  return { ss, cross };
}

/** A column ready for Spearman pairs: its ranking, centred ranks (0 in gaps) and their Σ². */
export interface SpearmanColumn {
  ranking: Ranking;
  present: Uint8Array | null;
  centred: Float64Array;
  ss: number;
}

/** Counts the rows where both masks are 1. */
function both(a: Uint8Array, b: Uint8Array): number {
  let m = 0;
  for (let r = 0; r < a.length; r++) m += a[r] & b[r];
  return m;
}

/**
 * Spearman's rho of two prepared columns over the rows both have (NaN when a side has no spread
 * there); `scratch` is a buffer of the row count, because a pair with gaps on both sides needs one.
 */
export function spearmanPair(a: SpearmanColumn, b: SpearmanColumn, scratch: Float64Array): number {
  let r: number;
  if (!a.present && !b.present) {
    let cross = 0;
    for (let t = 0; t < a.centred.length; t++) cross += a.centred[t] * b.centred[t];
    r = cross / Math.sqrt(a.ss * b.ss);
  } else if (!a.present || !b.present) {
    // The gapped side keeps its own ranks (its rows are the pair's rows); the other is re-ranked.
    const [full, gapped] = a.present ? [b, a] : [a, b];
    const w = centredRanks(full.ranking, gapped.present, gapped.ranking.rows.length, null, gapped.centred);
    r = w.cross / Math.sqrt(w.ss * gapped.ss);
  } else {
    const m = both(a.present, b.present);
    const wb = centredRanks(b.ranking, a.present, m, scratch, null);
    const wa = centredRanks(a.ranking, b.present, m, null, scratch);
    r = wa.cross / Math.sqrt(wa.ss * wb.ss);
  }
  return r === r && Number.isFinite(r) ? Math.min(1, Math.max(-1, r)) : NaN;
}
