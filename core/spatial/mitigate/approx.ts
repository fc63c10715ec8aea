/**
 * PROMIS-Approx (docs/spatial-fairness.md): minimise Σ_i w_i·|ρin_i - ρout_i| over the flips, with
 * w_i = sqrt(n_i (N - n_i)/N), under Σ|δ| ≤ C and the integer window of newP, as a MIP on HiGHS
 * (continuous flips, one integer column D = newP - P), every answer with a proven bound (approx_bound.ts).
 *
 * Each term is written in counts, which is the same number with better-scaled coefficients:
 *   w_i·(ρin_i - ρout_i) = κ_i·((p_i + δ_i) - n_i·newP/N),   κ_i = sqrt(N / (n_i (N - n_i)))
 * (multiply out (p+δ)/n - (newP - p - δ)/(N - n) by w_i), and |·| is split into two non-negative
 * parts e⁺_i - e⁻_i (one equality row per region instead of two inequalities: half the rows to solve):
 *   columns  x_u (flips of unit u, sign fixed by its label), e⁺_i, e⁻_i (regions with 0 < n_i < N), D;
 *   rows     Σ_{u∋i} x_u - (n_i/N) D - e⁺_i + e⁻_i = n_i P/N - p_i,
 *            Σ_u sign_u·x_u ≤ C (|x_u| = sign_u·x_u: a unit flips one way only),
 *            Σ_u x_u - D = 0 over EVERY unit (so newP counts every individual);
 *   minimise Σ_i κ_i (e⁺_i + e⁻_i); D integer (fixed at the relaxation's neighbours, by convexity).
 * Regions with n_i = 0 or n_i = N have w_i = 0 and no term.
 */
import { approxRows } from "./approx_bound.ts";
import { type ApproxResult, solveApproxByColumns } from "./approx_columns.ts";
import { INF, type SparseModel } from "./highs.ts";
import type { MitigationProblem } from "./problem.ts";
import type { OnProgress } from "./status.ts";

export type { ApproxResult };

/**
 * The whole sparse model of PROMIS-Approx (columns: U flips, then e⁺/e⁻ of active regions, then D; rows: the
 * active regions in order, the budget, the sum), written column by column: a unit's column is its regions'
 * rows as the problem lists them, so nothing is transposed. The service solves the model by column
 * generation (approx_columns.ts); this whole model is what HiGHS's generic methods are measured on.
 */
export function approxModel(pr: MitigationProblem): SparseModel {
  const U = pr.unitSign.length, { kappa, alpha, rhs, unitRowStart, unitRows } = approxRows(pr);
  const T = kappa.length;
  const colD = U + 2 * T, nCols = colD + 1, nRows = T + 2, budgetRow = T, sumRow = T + 1;
  const colCost = new Float64Array(nCols),
    colLower = new Float64Array(nCols),
    colUpper = new Float64Array(nCols);
  const rowLower = new Float64Array(nRows), rowUpper = new Float64Array(nRows);
  let nnz = 2 * T + T + 1;
  nnz += unitRows.length + 2 * U;
  const start = new Int32Array(nCols + 1), index = new Int32Array(nnz), value = new Float64Array(nnz);
  let at = 0;
  // x_u: +1 in each of its active regions' rows (ascending, as the problem lists them), its sign in the
  // budget row, 1 in the sum row; bounds by its label's direction
  for (let u = 0; u < U; u++) {
    if (pr.unitSign[u] > 0) colUpper[u] = pr.unitCount[u];
    else colLower[u] = -pr.unitCount[u];
    for (let k = unitRowStart[u]; k < unitRowStart[u + 1]; k++) (index[at] = unitRows[k], value[at++] = 1);
    (index[at] = budgetRow, value[at++] = pr.unitSign[u]);
    (index[at] = sumRow, value[at++] = 1);
    start[u + 1] = at;
  }
  // e⁺ and e⁻ of each active row: -1 and +1 in its row, cost κ
  for (let k = 0; k < T; k++) {
    colCost[U + 2 * k] = colCost[U + 2 * k + 1] = kappa[k];
    colUpper[U + 2 * k] = colUpper[U + 2 * k + 1] = INF;
    (index[at] = k, value[at++] = -1, start[U + 2 * k + 1] = at);
    (index[at] = k, value[at++] = 1, start[U + 2 * k + 2] = at);
    rowLower[k] = rowUpper[k] = rhs[k];
  }
  // D: -α_i in each active row, -1 in the sum row
  for (let k = 0; k < T; k++) (index[at] = k, value[at++] = -alpha[k]);
  (index[at] = sumRow, value[at++] = -1, start[nCols] = at);
  colLower[colD] = pr.dMin, colUpper[colD] = pr.dMax;
  rowLower[budgetRow] = -INF, rowUpper[budgetRow] = pr.C; // Σ sign_u·x_u ≤ C; the sum row's bounds stay 0
  return { colCost, colLower, colUpper, integer: [colD], rowLower, rowUpper, start, index, value };
}

/** Solves PROMIS-Approx under `workLimitSeconds` (wall clock), certified by a dual bound. */
export function solveApprox(
  pr: MitigationProblem,
  workLimitSeconds: number,
  onProgress?: OnProgress,
): Promise<ApproxResult> {
  return solveApproxByColumns(pr, workLimitSeconds, onProgress);
}
