/**
 * HiGHS (npm `highs`, WebAssembly) behind one call: a model as sparse arrays in, a status and the
 * column values out. The model goes through the package's structured `createModel(ModelData)` API,
 * never through LP text, so nothing a user sent is parsed as a model. The WebAssembly module is
 * compiled once per isolate, but every solve gets a fresh instance: an instance that aborted or
 * errored is never reused (DESIGN.md "Long work"), and a fresh one costs a few milliseconds.
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

/** A sparse model: rows lower ≤ A x ≤ upper, columns lower ≤ x ≤ upper, minimise cost·x. */
export interface SparseModel {
  colCost: Float64Array;
  colLower: Float64Array;
  colUpper: Float64Array;
  /** Indices of integer columns. */
  integer: number[];
  rowLower: Float64Array;
  rowUpper: Float64Array;
  /** Rows in CSR: row r holds (index[k], value[k]) for k in start[r] .. start[r+1]. */
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

/**
 * Solves `m` with HiGHS under `timeLimitSeconds` (HiGHS's `time_limit`: seconds of wall-clock time
 * of this solve). Statuses: optimal → 0; time/iteration limit with a feasible point → 1, without → 2;
 * infeasible → 3; anything else (load/model/solve errors, exceptions, an abort) → 4. Never throws.
 */
export async function solveSparse(m: SparseModel, timeLimitSeconds: number): Promise<SolveOutcome> {
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  let highs;
  try {
    highs = await loadHighs({ wasmModule: await wasmModule() });
  } catch (e) {
    return {
      status: solverStatus(4, `loading HiGHS failed: ${String(e)}`),
      x: null,
      objective: null,
      seconds: 0,
    };
  }
  const nCols = m.colCost.length, nRows = m.rowLower.length;
  const integrality = new Int32Array(nCols);
  for (const j of m.integer) integrality[j] = 1;
  const clampInf = (a: Float64Array) =>
    a.map((v) => (v === Infinity ? highs.infinity : v === -Infinity ? -highs.infinity : v));
  const data: ModelData = {
    numCols: nCols,
    numRows: nRows,
    colCost: m.colCost,
    colLower: clampInf(m.colLower),
    colUpper: clampInf(m.colUpper),
    rowLower: clampInf(m.rowLower),
    rowUpper: clampInf(m.rowUpper),
    matrix: {
      format: "csr",
      numRows: nRows,
      numCols: nCols,
      starts: m.start,
      indices: m.index,
      values: m.value,
    },
    ...(m.integer.length ? { integrality } : {}),
  };
  let model;
  try {
    model = highs.createModel(data);
    model.options.set({ output_flag: false, time_limit: Math.max(1e-3, timeLimitSeconds), mip_rel_gap: 0 });
    const run = model.run();
    const S = highs.constants.modelStatus;
    const st = run.modelStatus;
    const feasible = model.info.get("primal_solution_status") === highs.constants.solutionStatus.feasible;
    const solution = () => ({
      x: Float64Array.from(model!.getSolution().colValue),
      objective: model!.getObjectiveValue(),
    });
    if (st === S.optimal) return { status: solverStatus(0), ...solution(), seconds: seconds() };
    if (st === S.infeasible) {
      return {
        status: solverStatus(3, "HiGHS proved the model infeasible"),
        x: null,
        objective: null,
        seconds: seconds(),
      };
    }
    const limited = st === S.timeLimit || st === S.iterationLimit || st === S.interrupted ||
      st === S.solutionLimit;
    if (limited) {
      const detail = `HiGHS stopped at its time limit of ${timeLimitSeconds} s (model status ${st})`;
      return feasible
        ? { status: solverStatus(1, detail), ...solution(), seconds: seconds() }
        : { status: solverStatus(2, detail), x: null, objective: null, seconds: seconds() };
    }
    return {
      status: solverStatus(4, `HiGHS ended with model status ${st}`),
      x: null,
      objective: null,
      seconds: seconds(),
    };
  } catch (e) {
    return {
      status: solverStatus(4, `HiGHS failed: ${String(e)}`),
      x: null,
      objective: null,
      seconds: seconds(),
    };
  } finally {
    try {
      model?.dispose();
    } catch { /* the instance is dropped with the module either way */ }
  }
}
