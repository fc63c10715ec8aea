/**
 * The restricted master of PROMIS-Approx's column generation (approx_columns.ts) on HiGHS: every row (as
 * differences along nested regions, approx_chains.ts), the e± and D columns, and the units added so far;
 * how it is solved, and its solution and duals read back in the original rows.
 */
import type { Highs } from "highs";
import type { ApproxDuals, ApproxRows } from "./approx_bound.ts";
import { chainColumns, type Chains, chainVector, unchainDuals } from "./approx_chains.ts";
import { rowBounds, slackColumns, unitColumns } from "./approx_model.ts";
import type { MitigationProblem } from "./problem.ts";

/** The master of one solve: its HiGHS model, where each unit sits in it, and the layout of its columns. */
export interface Master {
  highs: Highs;
  model: ReturnType<Highs["createModel"]>;
  /** Master column of each unit, -1 while it is out. */
  colOf: Int32Array;
  /** Units in master column order, after the 2T e± columns and D. */
  units: number[];
  colD: number;
  T: number;
  /** Cap rows (after the region, budget and sum rows). */
  K: number;
  /** The rows as differences along nested regions (approx_chains.ts). */
  chains: Chains;
}

/** The master with every row and no unit: e⁺_i, e⁻_i per row, then D. */
export function openMaster(
  highs: Highs,
  pr: MitigationProblem,
  rows: ApproxRows,
  chains: Chains,
  limit: number,
): Master {
  const T = rows.kappa.length;
  const cols = chainColumns(slackColumns(pr, rows, highs.infinity), chains, T);
  const raw = rowBounds(pr, rows, highs.infinity);
  const bounds = { lower: chainVector(raw.lower, chains, T), upper: chainVector(raw.upper, chains, T) };
  const nCols = cols.cost.length, nRows = bounds.lower.length;
  const model = highs.createModel({
    numCols: nCols,
    numRows: nRows,
    colCost: cols.cost,
    colLower: cols.lower,
    colUpper: cols.upper,
    rowLower: bounds.lower,
    rowUpper: bounds.upper,
    matrix: {
      format: "csc",
      numRows: nRows,
      numCols: nCols,
      starts: cols.start,
      indices: cols.index,
      values: cols.value,
    },
  });
  model.options.set({ output_flag: false, time_limit: Math.max(1e-3, limit) });
  const K = rows.capRow.length;
  return {
    highs,
    model,
    colOf: new Int32Array(pr.unitSign.length).fill(-1),
    units: [],
    colD: 2 * T,
    T,
    K,
    chains,
  };
}

/** Adds units' columns to the master (approx_model.ts unitColumns, as differences), after those it has. */
export function addUnits(m: Master, pr: MitigationProblem, rows: ApproxRows, add: Int32Array): void {
  const cols = unitColumns(pr, rows, add, m.chains.pred);
  for (const u of add) (m.colOf[u] = m.colD + 1 + m.units.length, m.units.push(u));
  m.model.addCols({
    cost: cols.cost,
    lower: cols.lower,
    upper: cols.upper,
    matrix: {
      format: "csc",
      numRows: m.T + 2 + m.K,
      numCols: add.length,
      starts: cols.start,
      indices: cols.index,
      values: cols.value,
    },
  });
}

/** One optimal master's flips per unit (0 for units out of it) and its multipliers. */
export function readMaster(m: Master, U: number): { x: Float64Array; duals: ApproxDuals } {
  const sol = m.model.getSolution(), x = new Float64Array(U);
  m.units.forEach((u, c) => (x[u] = sol.colValue[m.colD + 1 + c]));
  const y = unchainDuals(Float64Array.from(sol.rowDual.subarray(0, m.T)), m.chains, m.T);
  const nu = Float64Array.from(sol.rowDual.subarray(m.T + 2, m.T + 2 + m.K));
  return { x, duals: { y, lambda: sol.rowDual[m.T], mu: sol.rowDual[m.T + 1], nu } };
}

/**
 * Solves the master: by the dual simplex from its basis, or (`interior`: a first master seeded with
 * thousands of units, which the simplex would take from a slack basis in thousands of pivots) by HiGHS's
 * interior point with crossover to a basis for the rounds after; should that fail, by the simplex.
 */
export function runMaster(m: Master, interior: boolean): number {
  const S = m.highs.constants.modelStatus;
  if (!interior) return m.model.run().modelStatus;
  m.model.options.set({ solver: "ipm", run_crossover: "on" });
  try {
    const st = m.model.run().modelStatus;
    if (st === S.optimal || st === S.timeLimit || st === S.interrupted) return st;
  } finally {
    m.model.options.set({ solver: "simplex" });
  }
  m.model.setLogicalBasis();
  return m.model.run().modelStatus;
}
