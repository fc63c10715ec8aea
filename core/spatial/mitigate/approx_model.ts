/**
 * The columns and rows of PROMIS-Approx (approx.ts has the model in words), written once for both its
 * users: the whole model that HiGHS's generic methods are measured on, and the restricted masters of the
 * column generation (approx_columns.ts), which start with the slack columns and add unit columns.
 * Rows: the approx rows (approx_bound.ts approxRows), then the budget row T, the sum row T + 1, and the cap
 * rows T + 2 + k (max_flips_per_region, rows.capRow).
 */
import type { ApproxRows } from "./approx_bound.ts";
import type { BoxLP } from "./interior_point.ts";
import type { MitigationProblem } from "./problem.ts";

/** Columns in CSC (rows ascending) with their costs and bounds. */
export interface Columns {
  cost: Float64Array;
  lower: Float64Array;
  upper: Float64Array;
  start: Int32Array;
  index: Int32Array;
  value: Float64Array;
}

/**
 * The flips x_u of `units`: +1 in each of the unit's rows (each once, ascending), its sign in the budget row,
 * 1 in the sum row; bounds by its label's direction, cost 0. With `pred` (the chains' pred of each row), the
 * region rows are the differences along nested regions (approx_chains.ts): the unit keeps its 1 only in the
 * rows where it enters a chain (its pred's members all lie in the row, so the difference is 1 or 0, never
 * -1), the column chainColumns would make of it without building the long one first.
 */
export function unitColumns(
  pr: MitigationProblem,
  rows: ApproxRows,
  units: ArrayLike<number>,
  pred?: Int32Array,
): Columns {
  const n = units.length, T = rows.kappa.length, start = new Int32Array(n + 1);
  const mark = new Int32Array(pred ? T : 0).fill(-1);
  // each entry of column c, in order, to `put` (called twice: to count, then to fill)
  const visit = (c: number, put: (i: number, v: number) => void) => {
    const u = units[c], from = rows.unitRowStart[u], to = rows.unitRowStart[u + 1];
    if (pred) { for (let k = from; k < to; k++) mark[rows.unitRows[k]] = c; }
    for (let k = from; k < to; k++) {
      const i = rows.unitRows[k], p = pred ? pred[i] : -1;
      if (p < 0 || mark[p] !== c) put(i, 1);
    }
    (put(T, pr.unitSign[u]), put(T + 1, 1));
    for (let k = from; k < to; k++) {
      const cap = rows.capOf[rows.unitRows[k]];
      if (cap >= 0) put(T + 2 + cap, pr.unitSign[u]);
    }
  };
  let at = 0;
  for (let c = 0; c < n; c++) (visit(c, () => at++), start[c + 1] = at);
  const index = new Int32Array(at), value = new Float64Array(at);
  mark.fill(-1);
  at = 0;
  for (let c = 0; c < n; c++) visit(c, (i, v) => (index[at] = i, value[at++] = v));
  const lower = new Float64Array(n), upper = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    const u = units[c];
    pr.unitSign[u] > 0 ? (upper[c] = pr.unitCount[u]) : (lower[c] = -pr.unitCount[u]);
  }
  return { cost: new Float64Array(n), lower, upper, start, index, value };
}

/**
 * e⁺_i and e⁻_i of each row (cost κ_i, −1 and +1 in it, [0, inf)), then D (−α_i in each row, −1 in the sum
 * row, [dMin, dMax]): the columns every master has.
 */
export function slackColumns(pr: MitigationProblem, rows: ApproxRows, inf: number): Columns {
  const T = rows.kappa.length, n = 2 * T + 1;
  const cost = new Float64Array(n), lower = new Float64Array(n), upper = new Float64Array(n);
  const start = new Int32Array(n + 1), index = new Int32Array(3 * T + 1), value = new Float64Array(3 * T + 1);
  let at = 0;
  for (let i = 0; i < T; i++) {
    cost[2 * i] = cost[2 * i + 1] = rows.kappa[i];
    upper[2 * i] = upper[2 * i + 1] = inf;
    (index[at] = i, value[at++] = -1, start[2 * i + 1] = at);
    (index[at] = i, value[at++] = 1, start[2 * i + 2] = at);
  }
  for (let i = 0; i < T; i++) (index[at] = i, value[at++] = -rows.alpha[i]);
  (index[at] = T + 1, value[at++] = -1, start[n] = at);
  (lower[2 * T] = pr.dMin, upper[2 * T] = pr.dMax);
  return { cost, lower, upper, start, index, value };
}

/** Row bounds: b_i on each row, Σ sign_u x_u ≤ C on the budget row, 0 on the sum row, ≤ cap on a cap row. */
export function rowBounds(pr: MitigationProblem, rows: ApproxRows, inf: number) {
  const T = rows.kappa.length, K = rows.capRow.length;
  const lower = new Float64Array(T + 2 + K), upper = new Float64Array(T + 2 + K);
  (lower.set(rows.rhs), upper.set(rows.rhs));
  (lower[T] = -inf, upper[T] = pr.C);
  for (let k = 0; k < K; k++) (lower[T + 2 + k] = -inf, upper[T + 2 + k] = rows.cap[k]);
  return { lower, upper };
}

/** x then y, in one array of their kind. */
function concat<A extends Float64Array | Int32Array>(x: A, y: A): A {
  const out = new (x.constructor as new (n: number) => A)(x.length + y.length);
  (out.set(x), out.set(y, x.length));
  return out;
}

/** Columns side by side: b's after a's (one CSC). */
export function joinColumns(a: Columns, b: Columns): Columns {
  const na = a.cost.length, start = new Int32Array(na + b.cost.length + 1);
  start.set(a.start);
  for (let c = 1; c <= b.cost.length; c++) start[na + c] = a.start[na] + b.start[c];
  return {
    cost: concat(a.cost, b.cost),
    lower: concat(a.lower, b.lower),
    upper: concat(a.upper, b.upper),
    start,
    index: concat(a.index, b.index),
    value: concat(a.value, b.value),
  };
}

/**
 * `cols` as the interior point's bounded LP (interior_point.ts), rows at `rhs`: a slack column (+1, [0, ∞),
 * cost 0) for each row whose `rowLower` is -Infinity (a ≤ row; `slackRow[k]` is slack k's), then every column
 * shifted to a lower bound of 0, the shift taken from `rhs` (a copy); `lower` keeps each column's shift.
 */
export function boxOf(
  cols: Columns,
  rowLower: Float64Array,
  rhs: Float64Array,
  dense: number,
): { lp: BoxLP; lower: Float64Array; slackRow: Int32Array } {
  const slackRow = Int32Array.from(rowLower.keys()).filter((i) => rowLower[i] === -Infinity);
  const k = slackRow.length,
    slacks: Columns = {
      cost: new Float64Array(k),
      lower: new Float64Array(k),
      upper: new Float64Array(k).fill(Infinity),
      start: Int32Array.from({ length: k + 1 }, (_, j) => j),
      index: slackRow,
      value: new Float64Array(k).fill(1),
    };
  const all = joinColumns(cols, slacks), n = all.cost.length, b = rhs.slice();
  const upper = all.upper.map((u, j) => u - all.lower[j]);
  for (let j = 0; j < n; j++) {
    if (all.lower[j] === 0) continue;
    for (let p = all.start[j]; p < all.start[j + 1]; p++) b[all.index[p]] -= all.value[p] * all.lower[j];
  }
  const { cost, start, index, value } = all;
  return {
    lp: { rows: rhs.length, cost, upper, rhs: b, start, index, value, dense },
    lower: all.lower,
    slackRow,
  };
}
