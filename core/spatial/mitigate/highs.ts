/**
 * HiGHS (npm `highs`, WebAssembly) behind one call: a model as sparse arrays in, a status and the
 * column values out. The model goes through the package's structured `createModel(ModelData)` API,
 * never through LP text, so nothing a user sent is parsed as a model. The WebAssembly module is
 * compiled once per isolate, but every solve gets a fresh instance: an instance that aborted or
 * errored is never reused, and a fresh one is cheap beside a solve.
 */
import highsLoader from "highs";
import type { Highs, InitOptions, ModelData } from "highs";
import { type SolverStatus, solverStatus } from "./status.ts";

// The package is CommonJS-typed: Deno types its default import as the namespace, while at run time
// (the "import" condition, build/highs.mjs) it is the loader function itself.
const loadHighs = highsLoader as unknown as (options?: InitOptions) => Promise<Highs>;

let compiled: Promise<WebAssembly.Module> | null = null;

/** The compiled highs.wasm of the pinned package (read from the npm cache, compiled once). */
function wasmModule(): Promise<WebAssembly.Module> {
  compiled ??= Deno.readFile(new URL(import.meta.resolve("highs/runtime")))
    .then((bytes) => WebAssembly.compile(bytes));
  compiled.catch(() => (compiled = null));
  return compiled;
}

/** A fresh HiGHS instance on the compiled module (an instance is never reused after a solve). */
export async function openHighs(): Promise<Highs> {
  return loadHighs({ wasmModule: await wasmModule() });
}

/** A sparse model: rows lower ≤ A x ≤ upper, columns lower ≤ x ≤ upper, minimise cost·x. */
export interface SparseModel {
  colCost: Float64Array;
  colLower: Float64Array;
  colUpper: Float64Array;
  /** Indices of integer columns. */
  integer: number[];
  rowLower: Float64Array;
  rowUpper: Float64Array;
  /** Columns in CSC: column c holds (row index[k], value[k]) for k in start[c] .. start[c+1], rows ascending. */
  start: Int32Array;
  index: Int32Array;
  value: Float64Array;
}

/** What a solve produced: the status, and the column values and objective when there is a solution. */
export interface SolveOutcome {
  status: SolverStatus;
  x: Float64Array | null;
  objective: number | null;
  /** Wall-clock seconds inside HiGHS. */
  seconds: number;
}

/** Infinity as HiGHS reads it (it treats ±1e30 and beyond as infinite bounds). */
export const INF = Infinity;

type Run = { st: number; feasible: boolean; x: Float64Array | null; objective: number | null };
type HighsModel = ReturnType<Highs["createModel"]>;

/** `m` as HiGHS's structured API takes it, ±Infinity as its infinity. */
function modelData(highs: Highs, m: SparseModel): ModelData {
  const nCols = m.colCost.length, nRows = m.rowLower.length;
  const big = (a: Float64Array) =>
    a.map((v) => (v === Infinity ? highs.infinity : v === -Infinity ? -highs.infinity : v));
  return {
    numCols: nCols,
    numRows: nRows,
    colCost: m.colCost,
    colLower: big(m.colLower),
    colUpper: big(m.colUpper),
    rowLower: big(m.rowLower),
    rowUpper: big(m.rowUpper),
    matrix: {
      format: "csc",
      numRows: nRows,
      numCols: nCols,
      starts: m.start,
      indices: m.index,
      values: m.value,
    },
  };
}

/** One run of `model`: its model status, and its solution when HiGHS has a feasible one. */
function runModel(highs: Highs, model: HighsModel): Run {
  const st = model.run().modelStatus;
  const feasible = model.info.get("primal_solution_status") === highs.constants.solutionStatus.feasible;
  return feasible || st === highs.constants.modelStatus.optimal
    ? {
      st,
      feasible: true,
      x: Float64Array.from(model.getSolution().colValue),
      objective: model.getObjectiveValue(),
    }
    : { st, feasible: false, x: null, objective: null };
}

/** A model status of a run that stopped at a limit. */
function limited(highs: Highs, st: number): boolean {
  const S = highs.constants.modelStatus;
  return st === S.timeLimit || st === S.iterationLimit || st === S.interrupted || st === S.solutionLimit;
}

/**
 * Integer column j, fractional in the relaxation: fixed at the nearer neighbour first (reaching the
 * relaxation's value there settles it: no integer does better), then at the other; the better kept. At the
 * limit: the best integral branch, else the relaxation, with status 1.
 */
function fixInteger(
  highs: Highs,
  model: HighsModel,
  j: number,
  relaxed: Run,
  limitDetail: string,
): { status: SolverStatus; x: Float64Array | null; objective: number | null } {
  const d = relaxed.x![j], relaxedValue = relaxed.objective!;
  let best: Run | null = null, cut = false;
  const near = Math.round(d), far = near === Math.floor(d) ? Math.ceil(d) : Math.floor(d);
  for (const v of [near, far]) {
    model.changeColBounds(j, v, v);
    const r = runModel(highs, model);
    if (r.st !== highs.constants.modelStatus.optimal) cut ||= limited(highs, r.st);
    else if (!best || r.objective! < best.objective!) best = r;
    if (best && best.objective! <= relaxedValue + 1e-9 * Math.max(1, Math.abs(relaxedValue))) break;
  }
  if (best && !cut) return { status: solverStatus(0), x: best.x, objective: best.objective };
  const fallback = best ?? relaxed;
  const detail = `${limitDetail} while fixing column ${j} to an integer`;
  return { status: solverStatus(1, detail), x: fallback.x, objective: fallback.objective };
}

/**
 * Solves `m` with HiGHS under `timeLimitSeconds` (HiGHS's `time_limit`: seconds of wall-clock time,
 * counted over all the runs of this solve). Statuses: optimal → 0; time/iteration limit with a
 * feasible point → 1, without → 2; infeasible → 3; anything else (load/model/solve errors,
 * exceptions, an abort) → 4. Never throws.
 *
 * At most one integer column is supported, and it is handled without HiGHS's MIP machinery (whose
 * branch and bound costs several LP solves here): the optimal value of an LP as a function of one
 * variable fixed at d is convex in d, so the integer optimum is at floor or ceil of the relaxation's
 * value. Solve the relaxation; if that column is integral, done; else re-solve with it fixed at the
 * nearer neighbour, then (unless that already reaches the relaxation's value) at the other (same
 * instance, warm-started), and keep the better (fixInteger).
 */
export async function solveSparse(m: SparseModel, timeLimitSeconds: number): Promise<SolveOutcome> {
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  const fail = (code: 2 | 3 | 4, detail: string): SolveOutcome => ({
    status: solverStatus(code, detail),
    x: null,
    objective: null,
    seconds: seconds(),
  });
  if (m.integer.length > 1) return fail(4, "at most one integer column is supported");
  let highs: Highs;
  try {
    highs = await openHighs();
  } catch (e) {
    return fail(4, `loading HiGHS failed: ${String(e)}`);
  }
  const limitDetail = `HiGHS stopped at its time limit of ${timeLimitSeconds} s`;
  let model: HighsModel | undefined;
  try {
    model = highs.createModel(modelData(highs, m));
    model.options.set({ output_flag: false, time_limit: Math.max(1e-3, timeLimitSeconds) });
    const S = highs.constants.modelStatus, relaxed = runModel(highs, model);
    if (relaxed.st === S.infeasible) return fail(3, "HiGHS proved the model infeasible");
    if (limited(highs, relaxed.st)) {
      if (!relaxed.feasible) return fail(2, limitDetail);
      return {
        status: solverStatus(1, limitDetail),
        x: relaxed.x,
        objective: relaxed.objective,
        seconds: seconds(),
      };
    }
    if (relaxed.st !== S.optimal) return fail(4, `HiGHS ended with model status ${relaxed.st}`);
    const j = m.integer[0];
    const d = j === undefined ? 0 : relaxed.x![j];
    if (j === undefined || Math.abs(d - Math.round(d)) <= 1e-9) {
      if (j !== undefined) relaxed.x![j] = Math.round(d);
      return { status: solverStatus(0), x: relaxed.x, objective: relaxed.objective, seconds: seconds() };
    }
    return { ...fixInteger(highs, model, j, relaxed, limitDetail), seconds: seconds() };
  } catch (e) {
    return fail(4, `HiGHS failed: ${String(e)}`);
  } finally {
    try {
      model?.dispose();
    } catch { /* the instance is dropped with the module either way */ }
  }
}
