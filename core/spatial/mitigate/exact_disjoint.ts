/**
 * PROMIS-Exact for disjoint regions: the minimum of Σ_i (l1_i - l0) over integer flips, proven.
 *
 * The documented method is to scan every integer newP of the rate window and solve each fixed-newP problem
 * exactly (exact_fixed_rate.ts). The window can hold tens of thousands of values, so the scan is a
 * best-first branch and bound over intervals of D = newP - P: an interval is split until it is one D
 * (solved exactly) or its lower bound (exact_fixed_rate.ts lowerBound, a valid bound for every D in it)
 * reaches the best objective found, which proves that no D in it does better. When the queue empties
 * (or its smallest bound reaches the incumbent) the incumbent is optimal. Each D after the first is
 * solved warm from the solution of the nearest D solved before (exact_fixed_rate_warm.ts). Bounds are
 * compared with a tolerance of 1e-9·max(1, |best|), the accuracy of the x·ln x table the objective is
 * computed from.
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

/**
 * The branch and bound's state: the D solved (each solution a warm start for the nearest D after it), the
 * incumbent, and the queue of intervals of D by lower bound.
 */
class DisjointSearch {
  readonly t0 = performance.now();
  readonly deadline: number;
  solved = 0;
  bounded = 0;
  readonly done = new Map<number, FixedSolution | null>();
  /** Solutions to warm-start from (the nearest D is the cheapest start). */
  readonly found: FixedSolution[] = [];
  best: FixedSolution | null = null;
  readonly queue: KeyedHeap;
  readonly lo: Int32Array;
  readonly hi: Int32Array;
  next = 0;

  constructor(readonly G: Groups, readonly dMin: number, readonly dMax: number, readonly limit: number) {
    this.deadline = this.t0 + limit * 1000;
    const cap = 2 * (dMax - dMin + 1) + 2;
    (this.queue = new KeyedHeap(cap), this.lo = new Int32Array(cap), this.hi = new Int32Array(cap));
  }

  seconds(): number {
    return (performance.now() - this.t0) / 1000;
  }

  tol(): number {
    return 1e-9 * Math.max(1, Math.abs(this.best?.value ?? 0));
  }

  /** D solved exactly (once), warm from the nearest solved D; null where no flips reach D or time ran out. */
  solve(D: number): FixedSolution | null {
    if (this.done.has(D)) return this.done.get(D)!;
    let from: FixedSolution | null = null;
    for (const f of this.found) if (!from || Math.abs(f.D - D) < Math.abs(from.D - D)) from = f;
    const s = from ? solveFixedDWarm(this.G, D, from, this.deadline) : solveFixedD(this.G, D, this.deadline);
    if (s || performance.now() <= this.deadline) (this.done.set(D, s), this.solved++);
    if (s) this.found.push(s);
    return s;
  }

  /** A solution as the incumbent when it is better. */
  offer(s: FixedSolution | null): void {
    if (s && (!this.best || s.value < this.best.value)) this.best = s;
  }

  /**
   * A lower bound of every D in [d1, d2]. The separable bound (λ = μ = 0) costs O(1) per region and is the
   * tight one while the budget has room. When the budget binds, the Lagrangian bound is nearly tight with the
   * multipliers of a D close to the interval (measured: within 1e-7 of F(D) at D itself), so the interval's
   * end nearest the incumbent is solved and its multipliers bound the interval; the solve may improve the
   * incumbent.
   */
  bound(d1: number, d2: number): number {
    this.bounded++;
    const lb = lowerBound(this.G, d1, d2, 0, 0), best = this.best;
    if (!best || lb >= best.value - this.tol() || !best.saturated) return lb;
    if (d2 - d1 < SOLVE_ALL) return this.solveAll(d1, d2) ?? lb;
    const s = this.solve(best.D < d1 ? d1 : best.D > d2 ? d2 : best.D);
    if (!s) return lb;
    this.offer(s);
    return Math.max(lb, lowerBound(this.G, d1, d2, s.lambda, s.mu, s.x));
  }

  /**
   * A narrow interval costs less to solve D by D (warm starts from a neighbour) than to bound: its minimum
   * is then exact. Null when the deadline stops a solve, so only the cheap bound holds.
   */
  solveAll(d1: number, d2: number): number | null {
    let min = Infinity;
    for (let D = d1; D <= d2; D++) {
      const s = this.solve(D);
      if (!s) {
        if (performance.now() > this.deadline) return null;
        continue; // no flips reach this D
      }
      this.offer(s);
      min = Math.min(min, s.value);
    }
    return min;
  }

  /** [d1, d2] into the queue, unless its bound already reaches the incumbent. */
  push(d1: number, d2: number, lb: number): void {
    if (this.best && lb >= this.best.value - this.tol()) return;
    (this.lo[this.next] = d1, this.hi[this.next] = d2, this.queue.push(this.next++, lb));
  }

  /** The answer under a status, with the bound and the counts. */
  result(status: SolverStatus, bound: number): ExactResult {
    const { best, solved, bounded } = this;
    return { status, best, bound, solved, bounded, seconds: this.seconds() };
  }

  /** From the whole window, the interval of lowest bound split or solved until none can hold a better D. */
  run(): ExactResult {
    const { queue, dMin, dMax, limit } = this;
    this.best = this.solve(Math.min(dMax, Math.max(dMin, 0)));
    if (!this.best && performance.now() > this.deadline) {
      const detail = `the work limit of ${limit} s passed before the first newP was solved`;
      return this.result(solverStatus(2, detail), -Infinity);
    }
    this.push(dMin, dMax, this.bound(dMin, dMax));
    while (queue.size) {
      const lb = queue.topKey(), k = queue.topId();
      if (this.best && lb >= this.best.value - this.tol()) break;
      if (performance.now() > this.deadline) {
        const detail = `stopped at the work limit of ${limit} s with ${queue.size} intervals of newP ` +
          `unexplored; best objective ${this.best?.value}, proven lower bound ${lb}`;
        return this.result(solverStatus(this.best ? 1 : 2, detail), lb);
      }
      queue.replaceTop(Infinity);
      const d1 = this.lo[k], d2 = this.hi[k];
      if (d1 === d2) {
        const s = this.solve(d1);
        if (!s && performance.now() > this.deadline) this.push(d1, d2, lb);
        else this.offer(s);
        continue;
      }
      const m = Math.floor((d1 + d2) / 2);
      this.push(d1, m, this.bound(d1, m));
      this.push(m + 1, d2, this.bound(m + 1, d2));
    }
    if (!this.best) {
      return this.result(
        solverStatus(3, "no integer flips reach a positive count in the rate window"),
        Infinity,
      );
    }
    const detail = `proven: every newP in [${this.G.P + dMin}, ${this.G.P + dMax}] solved exactly ` +
      `(${this.solved}) or bounded (${this.bounded} interval bounds) to within 1e-9 relative of the optimum`;
    return this.result(solverStatus(0, detail), this.best.value);
  }
}

/** Exact branch and bound over D ∈ [dMin, dMax] within `workLimitSeconds` of wall-clock time. */
export function solveExactDisjoint(
  G: Groups,
  dMin: number,
  dMax: number,
  workLimitSeconds: number,
): ExactResult {
  return new DisjointSearch(G, dMin, dMax, workLimitSeconds).run();
}
