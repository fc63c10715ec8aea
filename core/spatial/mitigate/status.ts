/**
 * The fixed set of solver outcomes a mitigation reports as `solver_status_code` /
 * `solver_status_message`. Only codes 0 and 1 come with flips; the others answer with none (never a 500).
 */

/** Status code → meaning, for the OpenAPI description of the mitigation routes. */
export const SOLVER_STATUS = {
  0: "optimal",
  1: "limit reached with a solution",
  2: "no solution within the limit",
  3: "infeasible",
  4: "solver error",
} as const;

export type SolverStatusCode = keyof typeof SOLVER_STATUS;

/**
 * Largest certified relative gap, (objective − bound) / max(1, |objective|), of an answer reported optimal:
 * the solver's feasibility tolerances leave about this much doubt in a bound computed from its duals.
 */
export const GAP_TOLERANCE = 1e-6;

/** A status with its message; `detail` says which limit stopped the search or what the solver said. */
export interface SolverStatus {
  code: SolverStatusCode;
  message: (typeof SOLVER_STATUS)[SolverStatusCode];
  detail: string;
}

/** The status of a code, with an optional detail line. */
export function solverStatus(code: SolverStatusCode, detail = ""): SolverStatus {
  return { code, message: SOLVER_STATUS[code], detail };
}

/** The detail of an approx answer that keeps a warm start's flips: they fit the budget and reach 0. */
export const WARM_FIT = "the warm start's flips fit and reach 0: optimal as they are";

/** True when the status carries a solution to apply (codes 0 and 1). */
export function hasSolution(s: SolverStatus): boolean {
  return s.code === 0 || s.code === 1;
}

/** Where a solve is, for a caller that shows it while it runs: the phase and, when known, the best so far. */
export interface SolveProgress {
  phase: "zero gap" | "column generation" | "integer D" | "exact search";
  /** The best solution's objective so far, and the best proven bound (null until there is one). */
  objective: number | null;
  bound: number | null;
}

/** Called as a solve moves on (from the worker running it; cheap, never throws back into the solver). */
export type OnProgress = (p: SolveProgress) => void;

/** The solver's outcome as flips x_u per unit (or none), for any mitigation that needs δ. */
export interface UnitSolution {
  status: SolverStatus;
  unitDelta: Float64Array | null;
  objective: number | null;
  bound: number | null;
  seconds: number;
}

/** Relative gap of a certified answer: (objective − bound) / max(1, |objective|), never below 0. */
export function relativeGap(objective: number, bound: number): number {
  return Math.max(0, objective - bound) / Math.max(1, Math.abs(objective));
}
