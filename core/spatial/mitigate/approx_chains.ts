/**
 * Nested regions written as differences (docs/spatial-fairness.md "How the approx model is solved"). A scan
 * design nests its regions: 30 squares of growing side around each seed, so a unit sits in ~100 rows and
 * its column is as long. Replacing each row i by row i − row pred(i), pred(i) the largest region inside
 * region i, is an invertible row operation (pred points to strictly smaller regions, so L = I − P is
 * unit triangular): the masters have the same solutions, but a unit keeps a coefficient only in the rows
 * where it enters a chain (a few per seed around it), e± get two, and HiGHS's factors stay sparse.
 */
import type { ApproxRows } from "./approx_bound.ts";
import type { Columns } from "./approx_model.ts";

/** pred(i) per row (-1 for none) and the rows whose pred is i (CSR), for the transform and its transpose. */
export interface Chains {
  pred: Int32Array;
  childStart: Int32Array;
  child: Int32Array;
  /** The rows by ascending α: every pred before its rows, the order L⁻¹ goes in (unchainVector). */
  smallFirst: Int32Array;
}

/** The units of each row (CSR): the transpose of the units' rows. */
export interface RowUnits {
  start: Int32Array;
  units: Int32Array;
}

/** The rows of each unit as row → units (CSR). */
export function rowUnits(rows: ApproxRows): RowUnits {
  const T = rows.kappa.length, U = rows.unitRowStart.length - 1, start = new Int32Array(T + 1);
  for (const i of rows.unitRows) start[i + 1]++;
  for (let i = 0; i < T; i++) start[i + 1] += start[i];
  const units = new Int32Array(start[T]), fill = start.slice(0, T);
  for (let u = 0; u < U; u++) {
    for (let k = rows.unitRowStart[u]; k < rows.unitRowStart[u + 1]; k++) units[fill[rows.unitRows[k]]++] = u;
  }
  return { start, units };
}

/** Whether unit u lies in row i (its rows are ascending: a binary search). */
function inRow(rows: ApproxRows, u: number, i: number): boolean {
  let lo = rows.unitRowStart[u], hi = rows.unitRowStart[u + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1, r = rows.unitRows[mid];
    if (r === i) return true;
    r < i ? (lo = mid + 1) : (hi = mid - 1);
  }
  return false;
}

/** Units of a row tested before the whole row: its rarest (a superset candidate misses them first). */
const PROBES = 8;

/** The `PROBES` units of row j in fewest rows, fewest first (a partial insertion sort). */
function rarest(
  ru: RowUnits,
  len: (u: number) => number,
  j: number,
): number[] {
  const out: number[] = [];
  for (let k = ru.start[j]; k < ru.start[j + 1]; k++) {
    const u = ru.units[k];
    if (out.length === PROBES && len(u) >= len(out[PROBES - 1])) continue;
    let at = out.length < PROBES ? out.length : PROBES - 1;
    while (at > 0 && len(out[at - 1]) > len(u)) (out[at] = out[at - 1], at--);
    out[at] = u;
  }
  return out;
}

/**
 * pred(i): the largest row whose units all lie in row i. Rows are taken largest first, and each is tried
 * as pred of the rows holding its unit of fewest rows (every superset holds that unit), so each row's
 * first success is its largest subset. A candidate must hold the row's rarest units before the whole
 * row is checked against its units (marked once per check).
 */
export function chainsOf(rows: ApproxRows, ru: RowUnits = rowUnits(rows)): Chains {
  const T = rows.kappa.length, pred = new Int32Array(T).fill(-1);
  const order = Int32Array.from({ length: T }, (_, i) => i).sort((a, b) => rows.alpha[b] - rows.alpha[a]);
  const len = (u: number) => rows.unitRowStart[u + 1] - rows.unitRowStart[u];
  const mark = new Int32Array(rows.unitRowStart.length - 1).fill(-1);
  for (const j of order) {
    if (ru.start[j] === ru.start[j + 1]) continue;
    const probes = rarest(ru, len, j), rare = probes[0];
    for (let k = rows.unitRowStart[rare]; k < rows.unitRowStart[rare + 1]; k++) {
      const i = rows.unitRows[k];
      if (i === j || pred[i] >= 0 || !(rows.alpha[i] > rows.alpha[j])) continue;
      if (!probes.every((u) => inRow(rows, u, i))) continue;
      for (let q = ru.start[i]; q < ru.start[i + 1]; q++) mark[ru.units[q]] = i;
      let subset = true;
      for (let q = ru.start[j]; q < ru.start[j + 1] && subset; q++) subset = mark[ru.units[q]] === i;
      if (subset) pred[i] = j;
    }
  }
  const childStart = new Int32Array(T + 1);
  for (const p of pred) if (p >= 0) childStart[p + 1]++;
  for (let i = 0; i < T; i++) childStart[i + 1] += childStart[i];
  const child = new Int32Array(childStart[T]), fill = childStart.slice(0, T);
  pred.forEach((p, i) => p >= 0 && (child[fill[p]++] = i));
  return { pred, childStart, child, smallFirst: order.slice().reverse() };
}

/**
 * L·a for each column (rows below T transformed, the others kept): (L a)_i = a_i − a_pred(i), nonzero
 * only at the column's rows and their children.
 */
export function chainColumns(c: Columns, ch: Chains, T: number): Columns {
  const n = c.cost.length, dense = new Float64Array(T), mark = new Int32Array(T).fill(-1);
  const seen = new Int32Array(T).fill(-1), touched = new Int32Array(T);
  const start = new Int32Array(n + 1), index: number[] = [], value: number[] = [];
  for (let col = 0; col < n; col++) {
    let count = 0;
    const see = (i: number) => seen[i] !== col && (seen[i] = col, touched[count++] = i);
    for (let k = c.start[col]; k < c.start[col + 1]; k++) {
      const i = c.index[k];
      if (i >= T) continue;
      (dense[i] = c.value[k], mark[i] = col, see(i));
      for (let q = ch.childStart[i]; q < ch.childStart[i + 1]; q++) see(ch.child[q]);
    }
    for (const i of touched.subarray(0, count).sort()) {
      const p = ch.pred[i];
      const v = (mark[i] === col ? dense[i] : 0) - (p >= 0 && mark[p] === col ? dense[p] : 0);
      if (v !== 0) (index.push(i), value.push(v));
    }
    for (let k = c.start[col]; k < c.start[col + 1]; k++) {
      if (c.index[k] >= T) (index.push(c.index[k]), value.push(c.value[k]));
    }
    start[col + 1] = index.length;
  }
  return { ...c, start, index: Int32Array.from(index), value: Float64Array.from(value) };
}

/** L·b for a vector over the rows (the rows' right-hand sides; entries from T on are kept). */
export function chainVector(b: Float64Array, ch: Chains, T: number): Float64Array {
  return b.map((v, i) => (i < T && ch.pred[i] >= 0 ? v - b[ch.pred[i]] : v));
}

/** L⁻¹·g: the original rows' values (residuals) from the differenced rows' (each row adds its pred's). */
export function unchainVector(g: Float64Array, ch: Chains): Float64Array {
  const out = g.slice();
  for (const i of ch.smallFirst) if (ch.pred[i] >= 0) out[i] += out[ch.pred[i]];
  return out;
}

/** Lᵀ·y': the original rows' multipliers from the transformed rows' (y_j = y'_j − Σ_{pred(i) = j} y'_i). */
export function unchainDuals(yp: Float64Array, ch: Chains, T: number): Float64Array {
  const y = yp.slice();
  for (let i = 0; i < T; i++) if (ch.pred[i] >= 0) y[ch.pred[i]] -= yp[i];
  return y;
}
