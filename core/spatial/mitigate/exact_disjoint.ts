/**
 * PROMIS-Exact for disjoint regions: the minimum of Σ_i (l1_i - l0) over integer flips, proven.
 *
 * The documented method is to scan every integer newP of the rate window and solve each fixed-newP problem
 * exactly (exact_fixed_rate.ts). The window can hold tens of thousands of values, so the scan is a
 * best-first branch and bound over intervals of D = newP - P: an interval is split until it is one D
 * (solved exactly) or its lower bound (exact_fixed_rate.ts lowerBound, a valid bound for every D in it)
 * reaches the best objective found, which proves that no D in it does better. When the queue empties
 * (or its smallest bound reaches the incumbent) the incumbent is optimal. Each D after the first is
 * solved warm from the solution of the nearest D solved before (exact_fixed_rate_warm.ts). Bounds are compared with a
 * tolerance of 1e-9·max(1, |best|), the accuracy of the x·ln x table the objective is computed from.
 */
import { KeyedHeap } from "./heap.ts";
import { type FixedSolution, type Groups, lowerBound, solveFixedD } from "./exact_fixed_rate.ts";
import { solveFixedDWarm } from "./exact_fixed_rate_warm.ts";
import { type SolverStatus, solverStatus } from "./status.ts";

/** Intervals of newP narrower than this are solved value by value rather than bounded. */
const SOLVE_ALL = 4;

/** The exact search's answer: status, best solution found (if any) and the proven lower bound. */
export interface ExactResult {
  status: SolverStatus;
  best: FixedSolution | null;
  /** A proven lower bound of the optimum (= best.value up to the tolerance when optimal). */
  bound: number;
  /** Values of D solved exactly, and intervals bounded. */
  solved: number;
  bounded: number;
  seconds: number;
}

/** Exact branch and bound over D ∈ [dMin, dMax] within `workLimitSeconds` of wall-clock time. */
export function solveExactDisjoint(
  G: Groups,
  dMin: number,
  dMax: number,
  workLimitSeconds: number,
): ExactResult {
  const t0 = performance.now(), deadline = t0 + workLimitSeconds * 1000;
  const seconds = () => (performance.now() - t0) / 1000;
  let solved = 0, bounded = 0;
  const done = new Map<number, FixedSolution | null>();
  const found: FixedSolution[] = []; // solutions to warm-start from (the nearest D is the cheapest start)
  const solve = (D: number) => {
    if (done.has(D)) return done.get(D)!;
    let from: FixedSolution | null = null;
    for (const f of found) if (!from || Math.abs(f.D - D) < Math.abs(from.D - D)) from = f;
    const s = from ? solveFixedDWarm(G, D, from, deadline) : solveFixedD(G, D, deadline);
    if (s || performance.now() <= deadline) (done.set(D, s), solved++);
    if (s) found.push(s);
    return s;
  };
  let best = solve(Math.min(dMax, Math.max(dMin, 0)));
  if (!best && performance.now() > deadline) {
    const detail = `the work limit of ${workLimitSeconds} s passed before the first newP was solved`;
    return {
      status: solverStatus(2, detail),
      best: null,
      bound: -Infinity,
      solved,
      bounded,
      seconds: seconds(),
    };
  }
  // The separable bound (λ = μ = 0) costs O(1) per region and is the tight one while the budget has
  // room. When the budget binds, the Lagrangian bound is nearly tight with the multipliers of a D close
  // to the interval (measured: within 1e-7 of F(D) at D itself), so the interval's end nearest the
  // incumbent is solved and its multipliers bound the interval; the solve may improve the incumbent.
  const bound = (d1: number, d2: number) => {
    bounded++;
    const lb = lowerBound(G, d1, d2, 0, 0);
    if (!best || lb >= best.value - tol() || !best.saturated) return lb;
    if (d2 - d1 < SOLVE_ALL) return solveAll(d1, d2) ?? lb;
    const anchor = best.D < d1 ? d1 : best.D > d2 ? d2 : best.D;
    const s = solve(anchor);
    if (!s) return lb;
    if (s.value < best.value) best = s;
    return Math.max(lb, lowerBound(G, d1, d2, s.lambda, s.mu, s.x));
  };
  // A narrow interval costs less to solve D by D (warm starts from a neighbour) than to bound: its
  // minimum is then exact. Null when the deadline stops a solve, so only the cheap bound holds.
  const solveAll = (d1: number, d2: number): number | null => {
    let min = Infinity;
    for (let D = d1; D <= d2; D++) {
      const s = solve(D);
      if (!s) {
        if (performance.now() > deadline) return null;
        continue; // no flips reach this D
      }
      if (s.value < best!.value) best = s;
      min = Math.min(min, s.value);
    }
    return min;
  };
  const tol = () => 1e-9 * Math.max(1, Math.abs(best?.value ?? 0));
  const cap = 2 * (dMax - dMin + 1) + 2;
  const queue = new KeyedHeap(cap), lo = new Int32Array(cap), hi = new Int32Array(cap);
  let next = 0;
  const push = (d1: number, d2: number, lb: number) => {
    if (best && lb >= best.value - tol()) return;
    lo[next] = d1, hi[next] = d2, queue.push(next++, lb);
  };
  push(dMin, dMax, bound(dMin, dMax));
  while (queue.size) {
    const lb = queue.topKey(), k = queue.topId();
    if (best && lb >= best.value - tol()) break;
    if (performance.now() > deadline) {
      const detail =
        `stopped at the work limit of ${workLimitSeconds} s with ${queue.size} intervals of newP ` +
        `unexplored; best objective ${best?.value}, proven lower bound ${lb}`;
      return {
        status: solverStatus(best ? 1 : 2, detail),
        best,
        bound: lb,
        solved,
        bounded,
        seconds: seconds(),
      };
    }
    queue.replaceTop(Infinity);
    const d1 = lo[k], d2 = hi[k];
    if (d1 === d2) {
      const s = solve(d1);
      if (!s && performance.now() > deadline) {
        push(d1, d2, lb);
        continue;
      }
      if (s && (!best || s.value < best.value)) best = s;
      continue;
    }
    const m = Math.floor((d1 + d2) / 2);
    push(d1, m, bound(d1, m));
    push(m + 1, d2, bound(m + 1, d2));
  }
  if (!best) {
    return {
      status: solverStatus(3, "no integer flips reach a positive count in the rate window"),
      best: null,
      bound: Infinity,
      solved,
      bounded,
      seconds: seconds(),
    };
  }
  const detail =
    `proven: every newP in [${G.P + dMin}, ${G.P + dMax}] solved exactly (${solved}) or bounded ` +
    `(${bounded} interval bounds) to within 1e-9 relative of the optimum`;
  return { status: solverStatus(0, detail), best, bound: best.value, solved, bounded, seconds: seconds() };
}
