/**
 * PROMIS-Approx (docs/spatial-fairness.md): minimise Σ_i w_i·|ρin_i - ρout_i| over the flips, with
 * w_i = sqrt(n_i (N - n_i)/N), under Σ|δ| ≤ C and the integer window of newP, as a MIP on HiGHS
 * (continuous flips, one integer column D = newP - P).
 *
 * Each term is written in counts, which is the same number with better-scaled coefficients:
 *   w_i·(ρin_i - ρout_i) = κ_i·((p_i + δ_i) - n_i·newP/N),   κ_i = sqrt(N / (n_i (N - n_i)))
 * (multiply out (p+δ)/n - (newP - p - δ)/(N - n) by w_i), and |·| is split into two non-negative
 * parts e⁺_i - e⁻_i (one equality row per region instead of two inequalities: half the rows to solve):
 *   columns  x_u (flips of unit u, sign fixed by its label), e⁺_i, e⁻_i (regions with 0 < n_i < N), D;
 *   rows     Σ_{u∋i} x_u - (n_i/N) D - e⁺_i + e⁻_i = n_i P/N - p_i,
 *            Σ_u sign_u·x_u ≤ C (|x_u| = sign_u·x_u: a unit flips one way only),
 *            Σ_u x_u - D = 0 over EVERY unit (so newP counts every individual);
 *   minimise Σ_i κ_i (e⁺_i + e⁻_i); D integer (highs.ts branches on it).
 * Regions with n_i = 0 or n_i = N have w_i = 0 and no term.
 */
import { INF, type SolveOutcome, solveSparse, type SparseModel } from "./highs.ts";
import type { MitigationProblem } from "./problem.ts";

/**
 * The sparse model of PROMIS-Approx (columns: U flips, then e⁺/e⁻ of active regions, then D; rows: the
 * active regions in order, the budget, the sum), written column by column: a unit's column is its regions'
 * rows as the problem lists them, so nothing is transposed (by rows, grouping the units of every region took
 * 60 ms of a relabel at 206k, and HiGHS turned the rows into columns again).
 */
export function approxModel(pr: MitigationProblem): SparseModel {
  const { N, P } = pr, U = pr.unitSign.length, R = pr.n.length;
  // row of each region: its place among the active ones (0 < n < N), else -1
  const rowOf = new Int32Array(R).fill(-1);
  let T = 0;
  for (let r = 0; r < R; r++) if (pr.n[r] > 0 && pr.n[r] < N) rowOf[r] = T++;
  const colD = U + 2 * T, nCols = colD + 1, nRows = T + 2, budgetRow = T, sumRow = T + 1;
  const colCost = new Float64Array(nCols),
    colLower = new Float64Array(nCols),
    colUpper = new Float64Array(nCols);
  const rowLower = new Float64Array(nRows), rowUpper = new Float64Array(nRows);
  let nnz = 2 * T + T + 1;
  for (let u = 0; u < U; u++) {
    for (let k = pr.unitRegStart[u]; k < pr.unitRegStart[u + 1]; k++) {
      if (rowOf[pr.unitRegions[k]] >= 0) nnz++;
    }
    nnz += 2;
  }
  const start = new Int32Array(nCols + 1), index = new Int32Array(nnz), value = new Float64Array(nnz);
  let at = 0;
  // x_u: +1 in each of its active regions' rows (ascending, as the problem lists them), its sign in the
  // budget row, 1 in the sum row; bounds by its label's direction
  for (let u = 0; u < U; u++) {
    if (pr.unitSign[u] > 0) colUpper[u] = pr.unitCount[u];
    else colLower[u] = -pr.unitCount[u];
    for (let k = pr.unitRegStart[u]; k < pr.unitRegStart[u + 1]; k++) {
      const row = rowOf[pr.unitRegions[k]];
      if (row >= 0) (index[at] = row, value[at++] = 1);
    }
    (index[at] = budgetRow, value[at++] = pr.unitSign[u]);
    (index[at] = sumRow, value[at++] = 1);
    start[u + 1] = at;
  }
  // e⁺ and e⁻ of each active region: -1 and +1 in its row, cost κ
  for (let r = 0; r < R; r++) {
    const k = rowOf[r];
    if (k < 0) continue;
    const kappa = Math.sqrt(N / (pr.n[r] * (N - pr.n[r])));
    colCost[U + 2 * k] = colCost[U + 2 * k + 1] = kappa;
    colUpper[U + 2 * k] = colUpper[U + 2 * k + 1] = INF;
    (index[at] = k, value[at++] = -1, start[U + 2 * k + 1] = at);
    (index[at] = k, value[at++] = 1, start[U + 2 * k + 2] = at);
    rowLower[k] = rowUpper[k] = (pr.n[r] * P) / N - pr.p[r];
  }
  // D: -n_i/N in each active region's row, -1 in the sum row
  for (let r = 0; r < R; r++) if (rowOf[r] >= 0) (index[at] = rowOf[r], value[at++] = -pr.n[r] / N);
  (index[at] = sumRow, value[at++] = -1, start[nCols] = at);
  colLower[colD] = pr.dMin, colUpper[colD] = pr.dMax;
  rowLower[budgetRow] = -INF, rowUpper[budgetRow] = pr.C; // Σ sign_u·x_u ≤ C; the sum row's bounds stay 0
  return { colCost, colLower, colUpper, integer: [colD], rowLower, rowUpper, start, index, value };
}

/** The approx solve: HiGHS's outcome and, with a solution, the real flips x_u of every unit. */
export interface ApproxResult extends SolveOutcome {
  unitDelta: Float64Array | null;
}

/** Solves PROMIS-Approx with HiGHS under `workLimitSeconds` (HiGHS time_limit, seconds). */
export async function solveApprox(pr: MitigationProblem, workLimitSeconds: number): Promise<ApproxResult> {
  const out = await solveSparse(approxModel(pr), workLimitSeconds);
  const U = pr.unitSign.length;
  return { ...out, unitDelta: out.x ? out.x.slice(0, U) : null };
}
