/**
 * The first master of PROMIS-Approx's column generation where the budget binds (docs/spatial-fairness.md
 * "How the approx model is solved"): Tessera's interior point (interior_point.ts) on the whole model, as
 * differences along nested regions, to a gap of 3e-4; the units it moves start the master, and HiGHS's
 * crossover (IPX's, from that point) gives the master a basis near its optimum. HiGHS's own interior point
 * on a master seeded by least squares took three times as long, and its first pricing round as long again:
 * least squares' largest units are not the optimum's.
 */
import type { ApproxRows } from "./approx_bound.ts";
import { chainColumns, type Chains, chainVector, unchainVector } from "./approx_chains.ts";
import { addUnits, type Master } from "./approx_master.ts";
import { boxOf, joinColumns, rowBounds, slackColumns, unitColumns } from "./approx_model.ts";
import { type BoxLP, type InteriorPoint, interiorPoint, timesT } from "./interior_point.ts";
import type { MitigationProblem } from "./problem.ts";

/**
 * The relative duality gap the interior point stops at: the crossover and the simplex finish the job. At
 * 1e-3 the simplex needed more pivots after the crossover, at 1e-4 the steps cost more than they saved.
 */
const STOP_GAP = 3e-4;

/** Interior point steps before it gives way to the least-squares seeds. */
const MAX_STEPS = 60;

/**
 * The whole model in the interior point's form: the master's columns (e± and D, then every unit, as
 * approx_master.ts lays them out), then a slack for each inequality row (budget, caps); every column
 * shifted to a lower bound of 0 (`lower` keeps the shift).
 */
export interface ApproxBox {
  lp: BoxLP;
  lower: Float64Array;
  /** Column of D; units follow it; slacks after the units, `slackRow[k]` the row of slack k. */
  colD: number;
  slackRow: Int32Array;
  /** Each row's upper bound before the shift. */
  rowUpper: Float64Array;
}

/** The whole model as a BoxLP, D the dense column; null when D is fixed (no interior to its box). */
export function approxBox(pr: MitigationProblem, rows: ApproxRows, chains: Chains): ApproxBox | null {
  if (pr.dMin === pr.dMax) return null;
  const T = rows.kappa.length, U = pr.unitSign.length, all = Int32Array.from({ length: U }, (_, u) => u);
  const cols = joinColumns(
    chainColumns(slackColumns(pr, rows, Infinity), chains, T),
    unitColumns(pr, rows, all, chains.pred),
  );
  const bounds = rowBounds(pr, rows, Infinity), rhs = bounds.upper.slice();
  rhs.set(chainVector(rows.rhs, chains, T));
  const { lp, lower, slackRow } = boxOf(cols, bounds.lower, rhs, 2 * T);
  return { lp, lower, colD: 2 * T, slackRow, rowUpper: bounds.upper };
}

/**
 * Where the interior point starts: every unit half a flip from no flip (or half its count), D at 0 as far
 * as its window allows, e± one above the rows' misses there, each slack one above its row's room.
 */
function startAt(box: ApproxBox, rows: ApproxRows, chains: Chains, pr: MitigationProblem): Float64Array {
  const { lp, lower, colD } = box, T = rows.kappa.length, U = pr.unitSign.length;
  const v = new Float64Array(lp.cost.length);
  for (let u = 0; u < U; u++) {
    const j = colD + 1 + u, tiny = Math.min(lp.upper[j] / 2, 0.5);
    v[j] = pr.unitSign[u] > 0 ? tiny : lp.upper[j] - tiny;
  }
  v[colD] = Math.min(Math.max(-lower[colD], 0.5), lp.upper[colD] - 0.5);
  const act = new Float64Array(lp.rows);
  for (let j = colD; j < colD + 1 + U; j++) {
    for (let p = lp.start[j]; p < lp.start[j + 1]; p++) act[lp.index[p]] += lp.value[p] * v[j];
  }
  const miss = lp.rhs.map((b, i) => b - act[i]);
  const missOf = unchainVector(miss.subarray(0, T), chains);
  for (let i = 0; i < T; i++) {
    (v[2 * i] = Math.max(-missOf[i], 0) + 1, v[2 * i + 1] = Math.max(missOf[i], 0) + 1);
  }
  box.slackRow.forEach((i, k) => (v[colD + 1 + U + k] = Math.max(miss[i], 0) + 1));
  return v;
}

/** The interior point on the whole model to STOP_GAP by `deadline`, or null (see interiorPoint). */
export function approxInterior(
  pr: MitigationProblem,
  rows: ApproxRows,
  chains: Chains,
  deadline: number,
): { box: ApproxBox; point: InteriorPoint } | null {
  const box = approxBox(pr, rows, chains);
  if (!box) return null;
  box.lp.from = startAt(box, rows, chains, pr);
  const point = interiorPoint(box.lp, { stopGap: STOP_GAP, maxIterations: MAX_STEPS, deadline });
  return point && { box, point };
}

/** Where the point puts column j: 0 at its lower bound, 2 at its upper, 1 between (by complementarity). */
function side(lp: BoxLP, p: InteriorPoint, j: number): 0 | 1 | 2 {
  if (p.v[j] <= p.z[j]) return 0;
  return lp.upper[j] < Infinity && lp.upper[j] - p.v[j] <= p.q[j] ? 2 : 1;
}

/**
 * Seeds the master from the interior point: the units it moves (and `extra` units) join, and HiGHS's
 * crossover starts from the point made exactly complementary, as IPX requires: each column at its
 * bound or between them by its side, its reduced cost clipped to that side's sign (0 between); an
 * inequality row the point leaves slack gets dual 0, and one it holds tight that snapping left short is
 * topped up by units between their bounds. Returns the units added; throws when HiGHS refuses the start.
 */
export function seedMaster(
  m: Master,
  pr: MitigationProblem,
  rows: ApproxRows,
  ip: { box: ApproxBox; point: InteriorPoint },
  extra: Iterable<number>,
): number {
  const { lp, lower, colD, slackRow, rowUpper } = ip.box, p = ip.point, U = pr.unitSign.length;
  const moved = new Set<number>(extra);
  for (let u = 0; u < U; u++) if (side(lp, p, colD + 1 + u) !== (pr.unitSign[u] > 0 ? 0 : 2)) moved.add(u);
  addUnits(m, pr, rows, Int32Array.from(moved));
  const cols = Int32Array.from(
    { length: colD + 1 + m.units.length },
    (_, k) => k <= colD ? k : colD + 1 + m.units[k - colD - 1],
  );
  const sides = Uint8Array.from(cols, (j) => side(lp, p, j));
  const x = Float64Array.from(
    cols,
    (j, k) => lower[j] + (sides[k] === 0 ? 0 : sides[k] === 2 ? lp.upper[j] : p.v[j]),
  );
  const y = p.y.slice();
  slackRow.forEach((i, s) => {
    if (side(lp, p, colD + 1 + U + s) !== 0) return void (y[i] = 0);
    let short = rowUpper[i];
    for (let k = 0; k < cols.length; k++) short -= rowCoefficient(lp, cols[k], i) * x[k];
    for (let k = colD + 1; k < cols.length && short > 0; k++) {
      const a = rowCoefficient(lp, cols[k], i), room = lower[cols[k]] + lp.upper[cols[k]] - x[k];
      if (sides[k] !== 1 || a === 0) continue;
      // a unit's coefficient in the budget and cap rows is its sign: |x| grows toward its count
      const step = Math.min(a > 0 ? room : x[k] - lower[cols[k]], short * (1 + 1e-9) + 1e-9);
      (x[k] += a * step, short -= step);
    }
  });
  const reduced = timesT(lp, y);
  const colDual = Float64Array.from(cols, (j, k) => {
    const r = lp.cost[j] - reduced[j];
    return sides[k] === 0 ? Math.max(r, 0) : sides[k] === 2 ? Math.min(r, 0) : 0;
  });
  m.model.crossover({ colValue: x, colDual, rowDual: y });
  return moved.size;
}

/** Column j's coefficient in row i (0 when it has none). */
function rowCoefficient(lp: BoxLP, j: number, i: number): number {
  for (let p = lp.start[j]; p < lp.start[j + 1]; p++) if (lp.index[p] === i) return lp.value[p];
  return 0;
}
