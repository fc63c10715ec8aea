/**
 * PROMIS-Approx by column generation (docs/spatial-fairness.md "How the approx model is solved"): the
 * model has a row per region but tens of thousands of unit columns, of which an optimum uses a few
 * thousand. HiGHS solves a restricted master (every row, the e± and D columns, the units added so far);
 * the master's duals price every unit (one pass over the units' regions); the most attractive ones join,
 * until none prices out. A unit's column stays once added (HiGHS keeps its basis between rounds). Every
 * round's duals give a proven bound (approx_bound.ts), so a time limit still answers with a gap. Where the
 * budget binds, the first master comes from Tessera's interior point (approx_interior.ts).
 */
import type { Highs } from "highs";
import {
  approxDualBound,
  approxObjective,
  type ApproxRows,
  approxRows,
  unitReducedCosts,
  withinCaps,
} from "./approx_bound.ts";
import { openHighs } from "./highs.ts";
import { type Chains, chainsOf, rowUnits } from "./approx_chains.ts";
import { approxInterior, seedMaster } from "./approx_interior.ts";
import { addUnits, type Master, openMaster, readMaster, runMaster } from "./approx_master.ts";
import { solveZeroGap, ZERO_GAP_MAX_ROWS, zeroGapOutOfReach } from "./zero_gap.ts";
import type { MitigationProblem } from "./problem.ts";
import {
  GAP_TOLERANCE,
  type OnProgress,
  relativeGap,
  type SolverStatus,
  solverStatus,
  WARM_FIT,
} from "./status.ts";

/**
 * Units added per round: enough that few rounds are needed (after the interior-point first master about
 * this many price out at once), few enough that a master stays small.
 */
const BATCH = 1_500;

/**
 * Units of the least-squares flips (zero_gap.ts, when they exceed the budget) that start the first master,
 * largest first, where Tessera's interior point cannot (interiorSeed): they hold many of the optimum's
 * columns, which would otherwise arrive a batch a round. HiGHS's interior point solves this first master
 * (runMaster), so more seeds cost little (BENCHMARKS.md has the figures).
 */
const SEED_UNITS = 6_000;

/**
 * Up to this many nonzeros in the units' columns the whole model goes to HiGHS at once (disjoint regions,
 * grid cells): pricing rounds only pay off where the columns are long and many.
 */
const WHOLE_MODEL_NONZEROS = 300_000;

/** The units whose reduced cost makes them worth adding, most attractive (largest cost × capacity) first. */
function priced(pr: MitigationProblem, colOf: Int32Array, d: Float64Array): Int32Array {
  const U = d.length, gain = new Float64Array(U), out: number[] = [];
  for (let u = 0; u < U; u++) {
    if (colOf[u] >= 0) continue;
    const g = pr.unitCount[u] * (pr.unitSign[u] > 0 ? -d[u] : d[u]);
    if (g > 1e-9) (gain[u] = g, out.push(u));
  }
  out.sort((a, b) => gain[b] - gain[a]);
  return Int32Array.from(out.slice(0, BATCH));
}

/** The `k` units of largest |x_u| among those with x_u ≠ 0. */
function largestUnits(x: Float64Array, k: number): Int32Array {
  const support = Int32Array.from(x.keys()).filter((u) => x[u] !== 0);
  return support.sort((a, b) => Math.abs(x[b]) - Math.abs(x[a])).slice(0, k);
}

/**
 * The first master from Tessera's interior point (approx_interior.ts), where its normal matrix fits: with
 * a basis when HiGHS's crossover accepted the point, without one when it refused it (the master has the
 * point's units, for HiGHS's interior point); null when the interior point did not converge. `steps`:
 * its iterations.
 */
function interiorSeed(
  m: Master,
  pr: MitigationProblem,
  rows: ApproxRows,
  chains: Chains,
  deadline: number,
  extra: ArrayLike<number>,
): { basis: boolean; steps: number } | null {
  if (rows.kappa.length + 2 + rows.capRow.length > ZERO_GAP_MAX_ROWS) return null;
  const ip = approxInterior(pr, rows, chains, deadline);
  if (!ip) return null;
  const before = m.units.length, steps = ip.point.iterations;
  try {
    seedMaster(m, pr, rows, ip, Array.from(extra));
    return { basis: true, steps };
  } catch {
    if (m.units.length === before) return null;
    m.model.setLogicalBasis();
    return { basis: false, steps };
  }
}

export interface ColumnsOutcome {
  code: 0 | 1 | 2 | 3 | 4;
  detail: string;
  x: Float64Array | null;
  objective: number | null;
  bound: number | null;
  rounds: number;
  columns: number;
}

/**
 * Column generation on one master with D in [dLo, dHi] (the master's D bounds are set to them): rounds
 * until the certified gap is within GAP_TOLERANCE or no unit prices out, or until `deadline`.
 */
function generate(
  m: Master,
  pr: MitigationProblem,
  rows: ApproxRows,
  deadline: number,
  limitSeconds: number,
  report: (objective: number, bound: number) => void,
  interiorFirst = false,
): ColumnsOutcome {
  const S = m.highs.constants.modelStatus, U = pr.unitSign.length;
  const dLo = m.model.getCols({ kind: "range", from: m.colD, to: m.colD }).lower[0];
  const dHi = m.model.getCols({ kind: "range", from: m.colD, to: m.colD }).upper[0];
  let best: ColumnsOutcome | null = null, rounds = 0;
  for (;;) {
    const left = (deadline - performance.now()) / 1000;
    if (left <= 0) break;
    m.model.zeroAllClocks(); // HiGHS's time_limit counts the instance's whole life otherwise
    m.model.options.set({ time_limit: left });
    const st = runMaster(m, interiorFirst && rounds === 0);
    rounds++;
    if (st !== S.optimal) {
      if (st === S.timeLimit || st === S.interrupted) break;
      if (st === S.infeasible) {
        const detail = "HiGHS proved the model infeasible";
        return { code: 3, detail, x: null, objective: null, bound: null, rounds, columns: m.units.length };
      }
      return {
        code: 4,
        detail: `HiGHS ended a master with model status ${st}`,
        x: null,
        objective: null,
        bound: null,
        rounds,
        columns: m.units.length,
      };
    }
    const { x, duals } = readMaster(m, U);
    const objective = approxObjective(rows, x);
    // the objective is a sum of absolute values, so 0 bounds it too (and proves a zero optimal)
    const bound = Math.max(best?.bound ?? 0, approxDualBound(pr, rows, duals, dLo, dHi));
    best = { code: 1, detail: "", x, objective, bound, rounds, columns: m.units.length };
    report(objective, bound);
    if (relativeGap(objective, bound) <= GAP_TOLERANCE) return { ...best, code: 0 };
    const add = priced(pr, m.colOf, unitReducedCosts(pr, rows, duals));
    if (!add.length) {
      const gap = relativeGap(objective, bound).toExponential(1);
      return { ...best, detail: `no unit prices out, but the certified gap ${gap} exceeds the tolerance` };
    }
    addUnits(m, pr, rows, add);
  }
  if (best) {
    return {
      ...best,
      rounds,
      detail: `stopped at the time limit of ${limitSeconds} s during column generation`,
    };
  }
  return {
    code: 2,
    detail: `stopped at the time limit of ${limitSeconds} s before a master was solved`,
    x: null,
    objective: null,
    bound: null,
    rounds,
    columns: m.units.length,
  };
}

/** The approx solve: a status, the real flips x_u of every unit, the objective and its proven bound. */
export interface ApproxResult {
  status: SolverStatus;
  unitDelta: Float64Array | null;
  objective: number | null;
  bound: number | null;
  /** Wall-clock seconds of the solve. */
  seconds: number;
  /** Masters solved and unit columns in the last one. */
  rounds: number;
  columns: number;
}

/** A warm start's flips when they fit `pr` (budget, window, caps, each unit's direction and count), else null. */
function fitting(
  pr: MitigationProblem,
  rows: ApproxRows,
  warm: Float64Array | null | undefined,
): Float64Array | null {
  if (!warm || warm.length !== pr.unitSign.length) return null;
  let used = 0, D = 0;
  for (let u = 0; u < warm.length; u++) {
    const v = warm[u] * pr.unitSign[u];
    if (!(v >= 0 && v <= pr.unitCount[u])) return null;
    (used += v, D += warm[u]);
  }
  const Dr = Math.round(D);
  const fits = used <= pr.C * (1 + 1e-12) && Math.abs(D - Dr) <= 1e-7 && Dr >= pr.dMin && Dr <= pr.dMax;
  return fits && withinCaps(rows, pr, warm) ? warm : null;
}

/** The answer of a solve started at t0 (performance.now() ms): `r`'s flips and figures under a status. */
function answer(
  t0: number,
  code: 0 | 1 | 2 | 3 | 4,
  detail: string,
  r: ColumnsOutcome | null,
  rounds = r?.rounds ?? 0,
): ApproxResult {
  return {
    status: solverStatus(code, detail),
    unitDelta: r?.x ?? null,
    objective: r?.objective ?? null,
    bound: r?.bound ?? null,
    seconds: (performance.now() - t0) / 1000,
    rounds,
    columns: r?.columns ?? 0,
  };
}

/** Before any master: an answer at 0 when one is found, else the chains and least squares' flips. */
type BeforeMasters = { atZero: ColumnsOutcome } | {
  atZero: null;
  chains: Chains;
  leastSquares: Float64Array | null;
};

/**
 * A warm start that fits and reaches 0 is optimal as it is; else every region at the overall rate within the
 * budget and the caps is optimal at 0, no simplex needed (least squares, skipped where disjoint regions alone
 * need more flips than the budget; it knows no caps, so its flips count only where they keep them).
 */
function atZero(
  pr: MitigationProblem,
  rows: ApproxRows,
  warm: Float64Array | null,
  deadline: number,
  onProgress: OnProgress,
): BeforeMasters {
  const at = (x: Float64Array, detail: string, rounds: number): ColumnsOutcome => ({
    code: 0,
    detail,
    x,
    objective: approxObjective(rows, x),
    bound: 0,
    rounds,
    columns: 0,
  });
  const start = fitting(pr, rows, warm);
  if (start && relativeGap(approxObjective(rows, start), 0) <= GAP_TOLERANCE) {
    return { atZero: at(start.slice(), WARM_FIT, 0) };
  }
  onProgress({ phase: "zero gap", objective: null, bound: null });
  const leastSquares: { x: Float64Array | null } = { x: null };
  const ru = rowUnits(rows), chains = chainsOf(rows, ru);
  const zero = zeroGapOutOfReach(pr, rows, ru)
    ? null
    : solveZeroGap(pr, rows, deadline, leastSquares, chains);
  if (
    zero && withinCaps(rows, pr, zero.x) && relativeGap(approxObjective(rows, zero.x), 0) <= GAP_TOLERANCE
  ) {
    const detail = `every region at the overall rate (${zero.steps} Newton steps): optimal at 0`;
    return { atZero: at(zero.x, detail, zero.steps) };
  }
  return { atZero: null, chains, leastSquares: leastSquares.x };
}

/**
 * The first master's columns: every unit where the whole model is small; else Tessera's interior point's
 * (interiorSeed), or else a neighbouring problem's units and least squares' largest. Whether HiGHS's
 * interior point solves the first master (runMaster), and what the answer's detail says of it.
 */
function firstColumns(
  m: Master,
  pr: MitigationProblem,
  rows: ApproxRows,
  { chains, leastSquares }: { chains: Chains; leastSquares: Float64Array | null },
  deadline: number,
  warm: Float64Array | null,
  onProgress: OnProgress,
): { interiorFirst: boolean; converged: string } {
  const U = pr.unitSign.length, converged = "column generation converged";
  if (rows.unitRows.length + 2 * U <= WHOLE_MODEL_NONZEROS) {
    addUnits(m, pr, rows, Int32Array.from(pr.unitSign, (_, u) => u));
    return { interiorFirst: false, converged };
  }
  // a neighbouring problem's units hold many of this optimum's columns
  const near = warm && warm.length === U ? Int32Array.from(warm.keys()).filter((u) => warm[u] !== 0) : [];
  // (the interior point takes a second or more before the first master reports)
  onProgress({ phase: "column generation", objective: null, bound: null });
  const seeded = interiorSeed(m, pr, rows, chains, deadline, near);
  if (seeded) {
    const how = seeded.basis ? "HiGHS's crossover from it" : "no crossover basis";
    const from = `; first master from Tessera's interior point (${seeded.steps} steps, ${how})`;
    return { interiorFirst: !seeded.basis, converged: converged + from };
  }
  // least squares' largest units hold many of the rest
  const seed = new Set(near);
  if (leastSquares) { for (const u of largestUnits(leastSquares, SEED_UNITS)) seed.add(u); }
  if (seed.size) addUnits(m, pr, rows, Int32Array.from(seed));
  return { interiorFirst: seed.size > 0, converged };
}

/**
 * The relaxation's D (real) fixed at the nearer integer and, unless that reaches the relaxation's bound, at
 * the other (the optimum over D is convex, so one of the two is the integer optimum); the better is kept,
 * bounded by the relaxation's bound, or both fixed ones' when higher.
 */
function integerD(
  m: Master,
  pr: MitigationProblem,
  rows: ApproxRows,
  relaxed: ColumnsOutcome,
  D: number,
  o: { t0: number; deadline: number; limitSeconds: number; onProgress: OnProgress; converged: string },
): ApproxResult {
  let best: ColumnsOutcome | null = null, rounds = relaxed.rounds, cut = false;
  const fixedBounds: number[] = [];
  const report = (objective: number, bound: number) => o.onProgress({ phase: "integer D", objective, bound });
  const near = Math.round(D), far = near === Math.floor(D) ? Math.ceil(D) : Math.floor(D);
  for (const v of [near, far]) {
    m.model.changeColBounds(m.colD, v, v);
    const r = generate(m, pr, rows, o.deadline, o.limitSeconds, report);
    rounds += r.rounds;
    cut ||= r.code !== 0;
    fixedBounds.push(r.bound ?? -Infinity);
    if (r.x && (!best || r.objective! < best.objective!)) best = r;
    if (best && relativeGap(best.objective!, relaxed.bound!) <= GAP_TOLERANCE) break;
  }
  if (!best) {
    const detail = `stopped at the time limit of ${o.limitSeconds} s while fixing D to an integer`;
    return answer(o.t0, 2, detail, null, rounds);
  }
  // a fixed D's bound holds for that D only: both neighbours' together bound every integer D
  const bound = Math.max(relaxed.bound!, fixedBounds.length === 2 ? Math.min(...fixedBounds) : -Infinity);
  const ok = !cut && relativeGap(best.objective!, bound) <= GAP_TOLERANCE;
  return answer(o.t0, ok ? 0 : 1, ok ? o.converged : best.detail || "integer D not proven", {
    ...best,
    bound,
  }, rounds);
}

/**
 * PROMIS-Approx within `limitSeconds`: the relaxation (D real) by column generation, then, when its D is not
 * an integer, D fixed at an integer (integerD). The bound is the relaxation's, or the fixed ones' when
 * higher. Never throws.
 *
 * `warm`: the flips of a neighbouring problem (a smaller budget of a frontier). When they fit this one and
 * already reach 0 they are optimal as they are; otherwise their units start in the first master.
 */
export async function solveApproxByColumns(
  pr: MitigationProblem,
  limitSeconds: number,
  onProgress: OnProgress = () => {},
  warm: Float64Array | null = null,
): Promise<ApproxResult> {
  const t0 = performance.now(), deadline = t0 + limitSeconds * 1000;
  let highs: Highs;
  try {
    highs = await openHighs();
  } catch (e) {
    return answer(t0, 4, `loading HiGHS failed: ${String(e)}`, null);
  }
  const rows = approxRows(pr);
  let m: Master | null = null;
  try {
    const before = atZero(pr, rows, warm, deadline, onProgress);
    if (before.atZero) return answer(t0, 0, before.atZero.detail, before.atZero);
    m = openMaster(highs, pr, rows, before.chains, limitSeconds);
    const { interiorFirst, converged } = firstColumns(m, pr, rows, before, deadline, warm, onProgress);
    const report = (objective: number, bound: number) =>
      onProgress({ phase: "column generation", objective, bound });
    const relaxed = generate(m, pr, rows, deadline, limitSeconds, report, interiorFirst);
    if (!relaxed.x) return answer(t0, relaxed.code, relaxed.detail, relaxed);
    let D = 0;
    for (const v of relaxed.x) D += v;
    if (Math.abs(D - Math.round(D)) <= 1e-7 || relaxed.code !== 0) {
      return answer(t0, relaxed.code, relaxed.detail || converged, relaxed);
    }
    return integerD(m, pr, rows, relaxed, D, { t0, deadline, limitSeconds, onProgress, converged });
  } catch (e) {
    return answer(t0, 4, `HiGHS failed: ${String(e)}`, null);
  } finally {
    try {
      m?.model.dispose();
    } catch { /* dropped with the instance either way */ }
  }
}
