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

/** Units of every region: regionUnits[regionStart[i] .. regionStart[i+1]). */
export function unitsByRegion(pr: MitigationProblem): { regionStart: Int32Array; regionUnits: Int32Array } {
  const R = pr.n.length, U = pr.unitSign.length;
  const regionStart = new Int32Array(R + 1);
  for (let k = 0; k < pr.unitRegions.length; k++) regionStart[pr.unitRegions[k] + 1]++;
  for (let r = 0; r < R; r++) regionStart[r + 1] += regionStart[r];
  const regionUnits = new Int32Array(pr.unitRegions.length), fill = regionStart.slice(0, R);
  for (let u = 0; u < U; u++) {
    for (let k = pr.unitRegStart[u]; k < pr.unitRegStart[u + 1]; k++) {
      regionUnits[fill[pr.unitRegions[k]]++] = u;
    }
  }
  return { regionStart, regionUnits };
}

/** The sparse model of PROMIS-Approx (columns: U flips, then e⁺/e⁻ of active regions, then D). */
export function approxModel(pr: MitigationProblem): SparseModel {
  const { N, P } = pr, U = pr.unitSign.length, R = pr.n.length;
  const active: number[] = [];
  for (let r = 0; r < R; r++) if (pr.n[r] > 0 && pr.n[r] < N) active.push(r);
  const T = active.length, colD = U + 2 * T, nCols = colD + 1, nRows = T + 2;
  const { regionStart, regionUnits } = unitsByRegion(pr);
  const colCost = new Float64Array(nCols),
    colLower = new Float64Array(nCols),
    colUpper = new Float64Array(nCols);
  for (let u = 0; u < U; u++) {
    if (pr.unitSign[u] > 0) colUpper[u] = pr.unitCount[u];
    else colLower[u] = -pr.unitCount[u];
  }
  active.forEach((r, k) => {
    const kappa = Math.sqrt(N / (pr.n[r] * (N - pr.n[r])));
    colCost[U + 2 * k] = colCost[U + 2 * k + 1] = kappa;
    colUpper[U + 2 * k] = colUpper[U + 2 * k + 1] = INF;
  });
  colLower[colD] = pr.dMin, colUpper[colD] = pr.dMax;
  let nnz = 2 * U + 1;
  for (const r of active) nnz += regionStart[r + 1] - regionStart[r] + 3;
  const start = new Int32Array(nRows + 1), index = new Int32Array(nnz), value = new Float64Array(nnz);
  const rowLower = new Float64Array(nRows), rowUpper = new Float64Array(nRows);
  let at = 0, row = 0;
  const put = (j: number, v: number) => (index[at] = j, value[at++] = v);
  active.forEach((r, k) => {
    for (let t = regionStart[r]; t < regionStart[r + 1]; t++) put(regionUnits[t], 1);
    put(U + 2 * k, -1), put(U + 2 * k + 1, 1), put(colD, -pr.n[r] / N);
    rowLower[row] = rowUpper[row] = (pr.n[r] * P) / N - pr.p[r];
    start[++row] = at;
  });
  for (let u = 0; u < U; u++) put(u, pr.unitSign[u]);
  rowLower[row] = -INF, rowUpper[row] = pr.C, start[++row] = at;
  for (let u = 0; u < U; u++) put(u, 1);
  put(colD, -1);
  start[++row] = at; // Σ x_u - D = 0 (bounds already 0)
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
