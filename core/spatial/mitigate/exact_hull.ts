/**
 * PROMIS-Exact's relaxation over the integers' convex hull at one D (docs/spatial-fairness.md "The hull
 * bound"). A region's count is an integer, so its term may be replaced by any convex function that stays
 * at or below φ_i(·, P') on the integers: here the piecewise linear one through the region's best integer
 * count, with pieces [0, 1], [1, 2] and [2, reach] away from it on each side, each at the discrete slope
 * φ(b + 1) − φ(b) of its first integer b (convexity keeps every integer on or above it). Over real flips that
 * is a linear program of the approx model's shape (few rows, many unit columns), solved by Tessera's
 * interior point (interior_point.ts) on the rows as differences along nested regions. Its value sees both
 * what B(P') sees (each region's integer rounding) and what the smooth relaxation sees (the budget), and its
 * row duals are the multipliers of a Lagrangian bound for every D (exact_dual_bound.ts).
 */
import type { ApproxRows } from "./approx_bound.ts";
import { chainColumns, type Chains, chainVector, unchainDuals } from "./approx_chains.ts";
import { boxOf, type Columns, joinColumns, rowBounds, unitColumns } from "./approx_model.ts";
import { raiseAround } from "./exact_dual_bound.ts";
import { regionTerm } from "./exact_objective.ts";
import { regionCapacities } from "./exact_rate_bound.ts";
import { interiorPoint } from "./interior_point.ts";
import type { MitigationProblem } from "./problem.ts";

/** The interior point's stop: the duals only need to be good multipliers, the bound is dualValues'. */
const STOP_GAP = 1e-3, MAX_STEPS = 100;

/**
 * Pieces on each side of a row's best count, widths 1, 1, 2, 4, ... (each at its first integer's slope), the
 * last one to the reach: three (1, 1, the rest) where the budget binds only towards an edge, and all of them
 * (UNIT_PIECES of width 1 first) where it binds everywhere, whose regions sit tens of counts from their best,
 * where three pieces fall far below φ. Every doubling took the interior point 73 steps on the LAR-like case,
 * three 64. LAR-like EO 2,000 (30 s, three runs): incumbent 26.23 → 25.98, bound 23.68-24.12 against
 * 23.93-23.98 (as a sixth hull fits or not); seed 7: gap 7.8 → 7.0 %. SP 0.05 and EO 0.05 lost with them
 * (3.6 % and 4.1 % against 2.7 % and 3.4 %: fewer hulls fit).
 */
export const EDGE_PIECES = 3, ALL_PIECES = Infinity;

/**
 * With every piece, the first ones of width 1, then doubling: LAR-like EO 2,000 at D 183, hull 25.276 with
 * doubling from the first, 25.340 with 8 of width 1 (1.8 against 1.9 s), 25.340 with 32 (2.7 s).
 */
const UNIT_PIECES = 8;

/** The relaxation's answer at D: its value (approximate), each region's multiplier, real flips per unit. */
export interface HullPoint {
  D: number;
  value: number;
  y: Float64Array;
  k: Float64Array;
}

/** The regions of each approx row (twins share a row, the same count and the same term). */
function rowRegions(pr: MitigationProblem, rows: ApproxRows): number[][] {
  const out: number[][] = Array.from({ length: rows.kappa.length }, () => []);
  for (let i = 0; i < pr.n.length; i++) if (rows.rowOf[i] >= 0) out[rows.rowOf[i]].push(i);
  return out;
}

/**
 * Each row's pieces in the rows' own coordinates (−1 in the row for a rise of its count, +1 for a fall),
 * the rows' best counts and Σ of their terms there; null when some row has no count it can reach at P'.
 */
function pieces(
  pr: MitigationProblem,
  t: Float64Array,
  rows: ApproxRows,
  regions: number[][],
  Pp: number,
  most: number,
) {
  const T = rows.kappa.length, { up, down } = regionCapacities(pr), N = pr.N;
  const unit = most === ALL_PIECES ? UNIT_PIECES : 1;
  const cost: number[] = [], upper: number[] = [], index: number[] = [], value: number[] = [];
  const base = new Float64Array(T);
  let constant = 0;
  for (let r = 0; r < T; r++) {
    const rs = regions[r], i = rs[0], n = pr.n[i], p = pr.p[i];
    const c = (x: number) => rs.reduce((s, j) => s + regionTerm(pr, t, j, x, Pp), 0);
    const lo = Math.max(p - down[i], Pp - (N - n), 0), hi = Math.min(p + up[i], Pp, n);
    if (lo > hi) return null;
    const a = Math.min(hi, Math.max(lo, Math.floor((n * Pp) / N))), b = Math.min(hi, a + 1);
    const x0 = c(b) < c(a) ? b : a;
    (base[r] = x0, constant += c(x0));
    for (const dir of [1, -1]) {
      const first = cost.length;
      const room = dir > 0 ? hi - x0 : x0 - lo;
      for (let d = 0; d < room;) {
        const last = cost.length - first >= most - 1;
        const next = last ? room : Math.min(room, d < unit ? d + 1 : 2 * d);
        (cost.push(c(x0 + dir * (d + 1)) - c(x0 + dir * d)), upper.push(next - d));
        (index.push(r), value.push(-dir));
        d = next;
      }
    }
  }
  const n = cost.length, start = Int32Array.from({ length: n + 1 }, (_, j) => j);
  const cols: Columns = {
    cost: Float64Array.from(cost),
    lower: new Float64Array(n),
    upper: Float64Array.from(upper),
    start,
    index: Int32Array.from(index),
    value: Float64Array.from(value),
  };
  return { cols, base, constant };
}

/**
 * The hull relaxation at D by `deadline` (performance.now() ms), or null (no count reachable at this D, or
 * the interior point did not converge). Rows: the approx model's (approx_model.ts rowBounds), the region rows
 * as differences, the sum row at D. `most`: pieces a side (EDGE_PIECES or ALL_PIECES).
 */
export function hullAtD(
  pr: MitigationProblem,
  t: Float64Array,
  rows: ApproxRows,
  chains: Chains,
  D: number,
  deadline: number,
  most = EDGE_PIECES,
): HullPoint | null {
  const T = rows.kappa.length, U = pr.unitSign.length;
  const regions = rowRegions(pr, rows), pc = pieces(pr, t, rows, regions, pr.P + D, most);
  if (!pc) return null;
  const units = unitColumns(pr, rows, Int32Array.from({ length: U }, (_, u) => u), chains.pred);
  const cols = joinColumns(chainColumns(pc.cols, chains, T), units);
  // the approx model's rows and bounds, the sum row at D; region rows at their best counts, as differences
  const bounds = rowBounds(pr, rows, Infinity), rhs = bounds.upper.slice(), fromP = new Float64Array(T);
  for (let r = 0; r < T; r++) fromP[r] = pc.base[r] - pr.p[regions[r][0]];
  (rhs.set(chainVector(fromP, chains, T)), rhs[T + 1] = D);
  const { lp, lower } = boxOf(cols, bounds.lower, rhs, -1);
  const point = interiorPoint(lp, { stopGap: STOP_GAP, maxIterations: MAX_STEPS, deadline });
  if (!point) return null;
  let value = pc.constant;
  for (let j = 0; j < lp.cost.length; j++) value += lp.cost[j] * point.v[j];
  // a region's multiplier is the price of one more of its positives: minus its row's dual, shared by twins
  const yRows = unchainDuals(point.y, chains, T), y = new Float64Array(pr.n.length);
  for (let r = 0; r < T; r++) for (const i of regions[r]) y[i] = -yRows[r] / regions[r].length;
  const k = new Float64Array(U), first = pc.cols.cost.length;
  for (let u = 0; u < U; u++) k[u] = Math.abs(point.v[first + u] + lower[first + u]);
  return { D, value, y, k };
}

/**
 * The bound over the window after the hull relaxations, the one of lowest value, and the one of lowest
 * value among those solved the other way (shifted towards where the budget binds less, or not), at least
 * APART from its D (null if none).
 */
export interface HullWindow {
  bound: number;
  best: HullPoint | null;
  other: HullPoint | null;
}

/**
 * How far from the best hull point's D another must be to be a second start for the local search. Where
 * the budget binds hardest the hull's value is least but the integers' gap to it largest: LAR-like SP
 * 0.05, the point at D -8,461 (3.222) searched to 3.470, the one solved shifted, at -7,443 (3.238), to
 * 3.309 (-8,572, unshifted, 3.392).
 */
const APART = 100;

/**
 * How far from the lowest D, towards one where the budget binds less, a hull is solved: multipliers fitted
 * at a window's edge, where the budget binds hardest, bound only a few dozen D around it, while those of a
 * D further in bound the edge too (LAR-like SP 0.05: from D -8,880 they lift every D down to -9,880).
 */
const TOWARDS = 1_000;

/** Where hullWindow solves, and until when. */
export interface HullOptions {
  /** A D where the budget binds less (where least squares fits, or approx's D). */
  towards: number;
  /** performance.now() ms after which no hull starts. */
  deadline: number;
  /** An incumbent's objective: a lowest bound that reaches it ends the hulls. */
  upper?: number;
  /** The pieces a side of each region's hull (EDGE_PIECES or ALL_PIECES). */
  most?: number;
  /**
   * How long past `deadline` a hull started before it may run: one cut short is lost whole, and where the
   * budget binds everywhere the last one decides the bound (LAR-like EO 2,000: 23.68 or 24.12).
   */
  overrun?: number;
  /**
   * Told of the shifted point after which shifts end: every later point is solved unshifted, so a second
   * start can begin from it at once.
   */
  settled?: (h: HullPoint) => void;
}

/**
 * The bound over the window after hull relaxations, each solved up to TOWARDS from the D of lowest bound in
 * the direction of `towards` (a D where the budget binds less: where least squares fits it, or approx's) and
 * raising the bound of the D around it (raiseAround); then at that lowest D itself (and once a shifted one
 * lifts nothing, every later one at the lowest D). They end when both were solved and it is still the lowest
 * (nothing lifts it further), when the lowest bound reaches `upper` (an incumbent's objective) or at
 * `deadline`. `rows`, `chains`: approx_bound.ts approxRows(pr) and its chains.
 * `env`: the bound per D (index D - dMin), B(P') to begin with or already lifted by other multipliers; raised
 * in place.
 */
export function hullWindow(
  pr: MitigationProblem,
  t: Float64Array,
  { rows, chains }: { rows: ApproxRows; chains: Chains },
  env: Float64Array,
  { towards, deadline, upper = Infinity, most = EDGE_PIECES, overrun = 0, settled }: HullOptions,
): HullWindow {
  const solved = new Set<number>(), points: HullPoint[] = [], moved: boolean[] = [];
  let best: HullPoint | null = null, shift = true;
  const lowest = () => pr.dMin + env.reduce((at, v, j) => (v < env[at] ? j : at), 0);
  for (let D = lowest(); env[D - pr.dMin] < upper && performance.now() < deadline; D = lowest()) {
    const shifted = D + Math.sign(towards - D) * Math.min(TOWARDS, Math.ceil(Math.abs(towards - D) / 2));
    // the shifted solve (or one within APART of it) did not lift this D: solve at it, and once that is done
    // too, nothing lifts it
    const done = [...solved].some((s) => Math.abs(s - shifted) < APART);
    const at = done || !shift ? D : shifted;
    if (solved.has(at)) break;
    solved.add(at);
    const h = hullAtD(pr, t, rows, chains, at, deadline + overrun, most);
    if (!h) break;
    if (!best || h.value < best.value) best = h;
    const before = env[D - pr.dMin];
    (points.push(h), moved.push(at !== D));
    raiseAround(pr, t, h.y, h.D, env, deadline + overrun);
    // a shifted hull left the lowest bound where it was: multipliers from further in no longer reach the
    // lowest D (LAR-like EO 0.05 from the first, SP 0.05 from the second), so each later hull is solved at
    // the lowest D itself
    if (at !== D && env[lowest() - pr.dMin] <= before) (shift = false, settled?.(h));
  }
  let other: HullPoint | null = null;
  const side = moved[points.indexOf(best!)];
  points.forEach((h, j) => {
    if (moved[j] === side || Math.abs(h.D - best!.D) < APART) return;
    if (!other || h.value < other.value) other = h;
  });
  return { bound: Math.max(0, env[lowest() - pr.dMin]), best, other };
}
