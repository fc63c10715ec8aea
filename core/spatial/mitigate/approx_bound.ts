/**
 * The certificate of a PROMIS-Approx answer (docs/spatial-fairness.md "Certificates"): the objective of the
 * flips, recomputed from them, and a lower bound of the optimum from any multipliers of the model's rows
 * (Lagrangian duality), so a reply says how far from optimal it can be without trusting the solver.
 *
 * The rows (approx.ts): for each region i with 0 < n_i < N,
 *   Σ_{u∋i} x_u − α_i D − e⁺_i + e⁻_i = b_i,   α_i = n_i/N,  b_i = n_i P/N − p_i,
 * the budget Σ_u sign_u x_u ≤ C, the sum Σ_u x_u − D = 0 and, with max_flips_per_region, a cap row
 * Σ_{u∋i} sign_u x_u ≤ cap_i. For multipliers y_i (regions), λ (budget), μ (sum) and ν_k (caps), with
 * reduced costs d_j = c_j − Σ_r a_rj·(multiplier of r), the dual function
 *   g = Σ_i b_i y_i + C λ + Σ_k cap_k ν_k + Σ_j min over column j's bounds of d_j x_j
 * is a lower bound of the optimum for every y, λ ≤ 0, μ, ν ≤ 0 (weak duality). The e± columns are finite only
 * while |y_i| ≤ κ_i, so y is clipped into that box and λ, ν to ≤ 0 first: any numbers give a valid bound.
 */
import type { MitigationProblem } from "./problem.ts";

/**
 * The rows of PROMIS-Approx: one per distinct set of members among the regions with 0 < n_i < N. Regions
 * with the same members (a scan design's nested squares often hold the same individuals: 285 of 3,001 on
 * the LAR-like case) have the same n, p, α and b, so their terms κ|·| add up to one row of weight Σκ; the
 * rows are fewer and the optimum the same.
 */
export interface ApproxRows {
  /** Row of region r, or -1 when its weight is 0 (n_r = 0 or n_r = N). */
  rowOf: Int32Array;
  /** Per row: its weight (κ_i = sqrt(N / (n_i (N − n_i))) summed over its regions), α_i = n_i/N, b_i = n_i P/N − p_i. */
  kappa: Float64Array;
  alpha: Float64Array;
  rhs: Float64Array;
  /** Rows of unit u (each once, ascending): unitRows[unitRowStart[u] .. unitRowStart[u+1]). */
  unitRowStart: Int32Array;
  unitRows: Int32Array;
  /**
   * max_flips_per_region: the cap rows Σ_{u∋i} sign_u x_u ≤ cap, one per row whose cap its units could
   * exceed (ascending row order): capRow[k] is the row, cap[k] its cap; capOf[row] is k, or -1.
   */
  capRow: Int32Array;
  cap: Float64Array;
  capOf: Int32Array;
}

/** Each region's units (CSR by region), from the units' region lists. */
function regionUnits(pr: MitigationProblem): { start: Int32Array; units: Int32Array } {
  const R = pr.n.length, U = pr.unitSign.length, start = new Int32Array(R + 1);
  for (let k = 0; k < pr.unitRegions.length; k++) start[pr.unitRegions[k] + 1]++;
  for (let r = 0; r < R; r++) start[r + 1] += start[r];
  const units = new Int32Array(start[R]), fill = start.slice(0, R);
  for (let u = 0; u < U; u++) {
    for (let k = pr.unitRegStart[u]; k < pr.unitRegStart[u + 1]; k++) units[fill[pr.unitRegions[k]]++] = u;
  }
  return { start, units };
}

/**
 * The rows of the approx model, in region order of their first region (one pass to group regions by their
 * units, hashed then compared; one to list each unit's rows once).
 */
export function approxRows(pr: MitigationProblem): ApproxRows {
  const { N, P } = pr, R = pr.n.length, U = pr.unitSign.length, rowOf = new Int32Array(R).fill(-1);
  const { start, units } = regionUnits(pr), firstOf = new Map<number, number[]>();
  const capOfRegion = (r: number) => pr.regionCap?.[r] ?? Infinity;
  const same = (a: number, b: number) => {
    // the same units, n and p make the same term; frozen members are in no unit, so n and p must be compared
    if (pr.n[a] !== pr.n[b] || pr.p[a] !== pr.p[b] || capOfRegion(a) !== capOfRegion(b)) return false;
    if (start[a + 1] - start[a] !== start[b + 1] - start[b]) return false;
    for (let k = 0; k < start[a + 1] - start[a]; k++) {
      if (units[start[a] + k] !== units[start[b] + k]) return false;
    }
    return true;
  };
  const kappas: number[] = [], alpha: number[] = [], rhs: number[] = [];
  for (let r = 0; r < R; r++) {
    if (!(pr.n[r] > 0 && pr.n[r] < N)) continue;
    let h = start[r + 1] - start[r];
    for (let k = start[r]; k < start[r + 1]; k++) h = Math.imul(h ^ units[k], 0x9e3779b1) ^ (h >>> 15);
    const kappa = Math.sqrt(N / (pr.n[r] * (N - pr.n[r]))), bucket = firstOf.get(h) ?? [];
    const twin = bucket.find((q) => same(q, r));
    if (twin !== undefined) {
      (rowOf[r] = rowOf[twin], kappas[rowOf[r]] += kappa);
      continue;
    }
    (bucket.push(r), firstOf.set(h, bucket));
    rowOf[r] = kappas.length;
    (kappas.push(kappa), alpha.push(pr.n[r] / N), rhs.push((pr.n[r] * P) / N - pr.p[r]));
  }
  const unitRowStart = new Int32Array(U + 1),
    list = new Int32Array(pr.unitRegions.length),
    seen = new Int32Array(kappas.length).fill(-1);
  let at = 0;
  for (let u = 0; u < U; u++) {
    for (let k = pr.unitRegStart[u]; k < pr.unitRegStart[u + 1]; k++) {
      const row = rowOf[pr.unitRegions[k]];
      if (row >= 0 && seen[row] !== u) (seen[row] = u, list[at++] = row);
    }
    list.subarray(unitRowStart[u], at).sort();
    unitRowStart[u + 1] = at;
  }
  // a cap row where the row's units could flip more members than its cap (any other cap cannot bind)
  const reach = new Float64Array(kappas.length), capOf = new Int32Array(kappas.length).fill(-1);
  const capRow: number[] = [], cap: number[] = [];
  for (let u = 0; u < U; u++) {
    for (let k = unitRowStart[u]; k < unitRowStart[u + 1]; k++) reach[list[k]] += pr.unitCount[u];
  }
  for (let r = 0; r < R && pr.regionCap; r++) {
    const row = rowOf[r];
    if (row >= 0 && capOf[row] < 0 && capOfRegion(r) < reach[row]) (capOf[row] = 1, capRow.push(row));
  }
  capRow.sort((a, b) => a - b);
  capRow.forEach((row, k) => (capOf[row] = k));
  for (let r = 0; r < R; r++) {
    if (rowOf[r] >= 0 && capOf[rowOf[r]] >= 0) cap[capOf[rowOf[r]]] = capOfRegion(r);
  }
  return {
    rowOf,
    kappa: Float64Array.from(kappas),
    alpha: Float64Array.from(alpha),
    rhs: Float64Array.from(rhs),
    unitRowStart,
    unitRows: list.subarray(0, at),
    capRow: Int32Array.from(capRow),
    cap: Float64Array.from(capRow, (_, k) => cap[k]),
    capOf,
  };
}

/** True when flips x keep every cap row (within a solver's 1e-9 tolerance per member). */
export function withinCaps(rows: ApproxRows, pr: MitigationProblem, x: Float64Array): boolean {
  if (!rows.capRow.length) return true;
  const f = new Float64Array(rows.capRow.length);
  for (let u = 0; u < x.length; u++) {
    if (x[u] === 0) continue;
    for (let k = rows.unitRowStart[u]; k < rows.unitRowStart[u + 1]; k++) {
      const c = rows.capOf[rows.unitRows[k]];
      if (c >= 0) f[c] += pr.unitSign[u] * x[u];
    }
  }
  return f.every((v, c) => v <= rows.cap[c] + 1e-9 * Math.max(1, rows.cap[c]));
}

/** Σ_i κ_i |Σ_{u∋i} x_u − α_i D − b_i| with D = Σ_u x_u: the approx objective of any flips x. */
export function approxObjective(rows: ApproxRows, x: Float64Array): number {
  const T = rows.kappa.length, act = new Float64Array(T);
  let D = 0;
  for (let u = 0; u < x.length; u++) {
    const v = x[u];
    if (v === 0) continue;
    D += v;
    for (let k = rows.unitRowStart[u]; k < rows.unitRowStart[u + 1]; k++) act[rows.unitRows[k]] += v;
  }
  let sum = 0;
  for (let i = 0; i < T; i++) sum += rows.kappa[i] * Math.abs(act[i] - rows.alpha[i] * D - rows.rhs[i]);
  return sum;
}

/** Multipliers of the approx model's rows: y per region row, λ of the budget, μ of the sum row, ν per cap row. */
export interface ApproxDuals {
  y: Float64Array;
  lambda: number;
  mu: number;
  /** Absent: no cap rows (or all at 0). */
  nu?: Float64Array;
}

/**
 * Reduced cost of every unit, d_u = −Σ_{i∋u} y_i − sign_u (λ + Σ_{caps∋u} ν) − μ (as given: clip them first
 * for a bound); the pricing of column generation and the unit part of the dual bound.
 */
export function unitReducedCosts(pr: MitigationProblem, rows: ApproxRows, m: ApproxDuals): Float64Array {
  const U = pr.unitSign.length, d = new Float64Array(U);
  for (let u = 0; u < U; u++) {
    let s = 0, nu = 0;
    for (let k = rows.unitRowStart[u]; k < rows.unitRowStart[u + 1]; k++) {
      const row = rows.unitRows[k], c = rows.capOf[row];
      s += m.y[row];
      if (c >= 0 && m.nu) nu += m.nu[c];
    }
    d[u] = -s - pr.unitSign[u] * (m.lambda + nu) - m.mu;
  }
  return d;
}

/** The multipliers clipped into the dual's domain (|y_i| ≤ κ_i, λ ≤ 0, ν ≤ 0), where g is finite. */
export function clipDuals(rows: ApproxRows, m: ApproxDuals): ApproxDuals {
  const y = m.y.map((v, i) => Math.max(-rows.kappa[i], Math.min(rows.kappa[i], v)));
  return { y, lambda: Math.min(0, m.lambda), mu: m.mu, nu: m.nu?.map((v) => Math.min(0, v)) };
}

/**
 * A proven lower bound of PROMIS-Approx's optimum (D real, so of the integer-D optimum too) with D in
 * [dLo, dHi], from any multipliers: the dual function at the clipped ones.
 */
export function approxDualBound(
  pr: MitigationProblem,
  rows: ApproxRows,
  multipliers: ApproxDuals,
  dLo = pr.dMin,
  dHi = pr.dMax,
): number {
  const m = clipDuals(rows, multipliers), d = unitReducedCosts(pr, rows, m);
  let g = pr.C * m.lambda, dD = m.mu;
  for (let c = 0; m.nu && c < m.nu.length; c++) g += rows.cap[c] * m.nu[c];
  for (let i = 0; i < m.y.length; i++) (g += rows.rhs[i] * m.y[i], dD += rows.alpha[i] * m.y[i]);
  // each unit at the end of its range that its reduced cost favours: [0, count] up, [−count, 0] down
  for (let u = 0; u < d.length; u++) {
    g += pr.unitSign[u] > 0 ? pr.unitCount[u] * Math.min(0, d[u]) : -pr.unitCount[u] * Math.max(0, d[u]);
  }
  return g + Math.min(dD * dLo, dD * dHi);
}
