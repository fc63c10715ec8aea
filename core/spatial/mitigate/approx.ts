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
import { joinColumns, rowBounds, slackColumns, unitColumns } from "./approx_model.ts";
import type { MitigationProblem } from "./problem.ts";
import type { OnProgress } from "./status.ts";

export type { ApproxResult };

/**
 * The whole sparse model of PROMIS-Approx (columns: U flips, then e⁺/e⁻ of each row, then D; rows: the
 * approx rows, the budget, the sum). The service solves the model by column generation (approx_columns.ts);
 * this whole model is what HiGHS's generic methods are measured on.
 */
export function approxModel(pr: MitigationProblem): SparseModel {
  const rows = approxRows(pr), U = pr.unitSign.length;
  const all = Int32Array.from({ length: U }, (_, u) => u);
  const cols = joinColumns(unitColumns(pr, rows, all), slackColumns(pr, rows, INF));
  const bounds = rowBounds(pr, rows, INF);
  return {
    colCost: cols.cost,
    colLower: cols.lower,
    colUpper: cols.upper,
    integer: [cols.cost.length - 1],
    rowLower: bounds.lower,
    rowUpper: bounds.upper,
    start: cols.start,
    index: cols.index,
    value: cols.value,
  };
}

/**
 * Solves PROMIS-Approx under `workLimitSeconds` (wall clock), certified by a dual bound; `warm`: a
 * neighbouring problem's flips to start from (approx_columns.ts).
 */
export function solveApprox(
  pr: MitigationProblem,
  workLimitSeconds: number,
  onProgress?: OnProgress,
  warm: Float64Array | null = null,
): Promise<ApproxResult> {
  return solveApproxByColumns(pr, workLimitSeconds, onProgress, warm);
}
