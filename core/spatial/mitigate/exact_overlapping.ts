/**
 * PROMIS-Exact when regions overlap: the objective Σ_i φ_i(x_i, P') couples regions through the
 * individuals they share, so it is no longer separable and the greedy of the disjoint case does not
 * apply. Method: a depth-first branch and bound over the units (interchangeable individuals, so the
 * decision is how many of each flip, k_u ∈ [0, count_u]) that sit in some region; the units in no
 * region only move newP and are settled at the leaves by trying every admissible count. The bound
 * at a node is Σ_i min over the region's still reachable positive counts x_i and the reachable
 * window of newP of φ_i(x_i, P') (exact_fixed_rate.ts regionBound, λ = μ = 0), valid because every φ_i
 * is ≥ that minimum in every completion. The incumbent starts at no flips (always feasible); finishing
 * the search proves optimality. The search keeps its path on an explicit stack (one frame per decided
 * unit), since its depth is the number of units: tens of thousands overflowed the call stack. At the
 * work limit it reports status 1 with the best found and the smallest bound of the nodes still open
 * (openBound).
 */
import { xlogxTable } from "../statistic.ts";
import { capsKept, capsLeft, exactObjective, positivesAfter } from "./exact_objective.ts";
import { regionBound } from "./exact_fixed_rate.ts";
import type { MitigationProblem } from "./problem.ts";
import type { OnProgress, UnitSolution } from "./status.ts";
import { solverStatus } from "./status.ts";

/** Share of the work limit the open bound may take after it (then the deepest frames share one bound). */
const GRACE = 0.05;

/** The incumbent's objective when its integer flips k_u fit the budget, the window and the caps, else Infinity. */
function evaluate(pr: MitigationProblem, t: Float64Array, k: Int32Array): number {
  const { x, D, used } = positivesAfter(pr, k);
  const fits = used <= pr.C && D >= pr.dMin && D <= pr.dMax && capsKept(pr, k);
  return fits ? exactObjective(pr, t, x, pr.P + D) : Infinity;
}

/** How the search stops: its clock, a node limit (tests), and who hears of its progress. */
interface SearchLimits {
  workLimitSeconds: number;
  deadline: number;
  nodeLimit: number;
  onProgress?: OnProgress;
}

/**
 * The depth-first search's state: the counts of the path taken so far (positives per region, D, flips used,
 * capacity still undecided per region and overall), the incumbent, and the explicit stack of frames.
 */
class OverlapSearch {
  readonly t: Float64Array;
  /** Units in some region, decided one per frame (largest first), and those in none. */
  readonly inRegion: number[] = [];
  readonly free: number[] = [];
  freeUp = 0;
  freeDown = 0;
  readonly x: Int32Array;
  readonly remUp: Int32Array;
  readonly remDown: Int32Array;
  readonly k: Int32Array;
  /** Flips each region may still take (max_flips_per_region; a large number without caps). */
  readonly capLeft: Int32Array;
  D = 0;
  used = 0;
  allUp = 0;
  allDown = 0;
  best: number;
  bestK: Int32Array;
  bestFree = 0;
  aborted = false;
  nodes = 0;
  /** Frame d decides unit inRegion[d]: its node's bound, largest count, first count, next step. */
  readonly fBound: Float64Array;
  readonly fTop: Int32Array;
  readonly fFirst: Int32Array;
  readonly fStep: Int32Array;
  sp = 0;
  /** At the limit: the bound of the node being entered. */
  open = Infinity;

  constructor(
    readonly pr: MitigationProblem,
    readonly start: Int32Array | null,
    readonly limits: SearchLimits,
  ) {
    const R = pr.n.length, U = pr.unitSign.length;
    this.t = xlogxTable(pr.N);
    for (let u = 0; u < U; u++) {
      (pr.unitRegStart[u + 1] > pr.unitRegStart[u] ? this.inRegion : this.free).push(u);
    }
    this.inRegion.sort((a, b) => pr.unitCount[b] - pr.unitCount[a]);
    for (const u of this.free) {
      pr.unitSign[u] > 0 ? (this.freeUp += pr.unitCount[u]) : (this.freeDown += pr.unitCount[u]);
    }
    (this.x = pr.p.slice(), this.remUp = new Int32Array(R), this.remDown = new Int32Array(R));
    (this.k = new Int32Array(U), this.capLeft = capsLeft(pr));
    (this.allUp = this.freeUp, this.allDown = this.freeDown);
    for (const u of this.inRegion) this.capacity(u, pr.unitCount[u]);
    this.best = pr.dMin <= 0 && 0 <= pr.dMax ? exactObjective(pr, this.t, this.x, pr.P) : Infinity;
    this.bestK = this.k.slice();
    if (start) this.seed(start);
    const L = this.inRegion.length;
    (this.fBound = new Float64Array(L), this.fTop = new Int32Array(L));
    (this.fFirst = new Int32Array(L), this.fStep = new Int32Array(L));
  }

  /** `start` as the incumbent when it is feasible and better than no flips. */
  seed(start: Int32Array): void {
    const v = evaluate(this.pr, this.t, start);
    if (v >= this.best) return;
    (this.best = v, this.bestK = start.slice(), this.bestFree = 0);
    // units in no region enter through D only: the leaves settle them as one net count
    for (const u of this.free) (this.bestFree += this.pr.unitSign[u] * start[u], this.bestK[u] = 0);
  }

  tol(): number {
    return 1e-9 * Math.max(1, Math.abs(this.best));
  }

  /** dk more flips of unit u on the path. */
  apply(u: number, dk: number): void {
    const pr = this.pr, d = pr.unitSign[u] * dk;
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      (this.x[pr.unitRegions[r]] += d, this.capLeft[pr.unitRegions[r]] -= dk);
    }
    (this.k[u] += dk, this.D += d, this.used += dk);
  }

  /** c more (c < 0: fewer) of unit u's flips still undecided, in its regions and overall. */
  capacity(u: number, c: number): void {
    const pr = this.pr, rem = pr.unitSign[u] > 0 ? this.remUp : this.remDown;
    pr.unitSign[u] > 0 ? (this.allUp += c) : (this.allDown += c);
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) rem[pr.unitRegions[r]] += c;
  }

  /** The bound of every completion of the path: each region at its best reachable count and newP. */
  bound(): number {
    const pr = this.pr, { N, P, C, dMin, dMax } = pr, left = C - this.used, x = this.x;
    const lo = P + Math.max(dMin, this.D - Math.min(this.allDown, left)),
      hi = P + Math.min(dMax, this.D + Math.min(this.allUp, left));
    if (lo > hi) return Infinity;
    let sum = 0;
    for (let i = 0; i < pr.n.length; i++) {
      if (pr.n[i] === 0 || pr.n[i] === N) continue;
      const down = Math.min(this.remDown[i], left, this.capLeft[i]),
        up = Math.min(this.remUp[i], left, this.capLeft[i]);
      sum += regionBound(this.t, pr.n[i], N, x[i], x[i] - down, x[i] + up, lo, hi);
    }
    return sum;
  }

  /** Every unit in a region decided: the units in none settle newP, every admissible net count tried. */
  leaf(): void {
    const pr = this.pr, left = pr.C - this.used;
    const f0 = Math.max(pr.dMin - this.D, -Math.min(this.freeDown, left)),
      f1 = Math.min(pr.dMax - this.D, Math.min(this.freeUp, left));
    for (let f = f0; f <= f1; f++) {
      const v = exactObjective(pr, this.t, this.x, pr.P + this.D + f);
      if (v < this.best - this.tol()) (this.best = v, this.bestK = this.k.slice(), this.bestFree = f);
    }
  }

  /** The node of the current state, at depth sp: stop, prune, settle a leaf, or push its frame. */
  enter(): void {
    const { pr, limits } = this;
    // every 1,024 nodes: the clock, and the incumbent for a caller that shows it (its bound: the root's)
    if ((++this.nodes & 1023) === 0 && limits.onProgress && this.fBound.length) {
      const objective = Number.isFinite(this.best) ? this.best : null;
      limits.onProgress({ phase: "exact search", objective, bound: this.fBound[0] });
    }
    if (((this.nodes & 1023) === 0 && performance.now() > limits.deadline) || this.nodes > limits.nodeLimit) {
      (this.aborted = true, this.open = this.bound());
      return;
    }
    const b = this.bound();
    if (b >= this.best - this.tol()) return;
    if (this.sp === this.inRegion.length) return this.leaf();
    const u = this.inRegion[this.sp];
    let top = Math.min(pr.unitCount[u], pr.C - this.used);
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      top = Math.min(top, this.capLeft[pr.unitRegions[r]]);
    }
    this.capacity(u, -pr.unitCount[u]);
    // counts from the seed's value outwards: c, c+1, c-1, c+2, ... within [0, top]
    const sp = this.sp++;
    (this.fBound[sp] = b,
      this.fTop[sp] = top,
      this.fFirst[sp] = Math.min(top, this.start ? this.start[u] : 0));
    this.fStep[sp] = 0;
  }

  /** From the root, each frame's next count until the stack is empty or the search stops. */
  run(): void {
    this.enter();
    while (this.sp > 0 && !this.aborted) {
      const d = this.sp - 1, u = this.inRegion[d], top = this.fTop[d], c = this.fFirst[d];
      let j = -1;
      while (j < 0 && this.fStep[d] <= 2 * top) {
        const step = this.fStep[d]++, v = c + (step % 2 ? (step + 1) / 2 : -step / 2);
        if (v >= 0 && v <= top) j = v;
      }
      if (j < 0) {
        (this.apply(u, -this.k[u]), this.capacity(u, this.pr.unitCount[u]), this.sp--);
        continue;
      }
      this.apply(u, j - this.k[u]);
      this.enter();
    }
    // every term of the objective is clamped at 0, so 0 bounds it too (the tables leave 1e-15 below)
    if (this.aborted) this.open = Math.max(0, Math.min(this.best, this.openBound()));
  }

  /** The bound of `b - a` more of unit u's flips undecided and `a` taken, on the path's state. */
  span(u: number, a: number, b: number): number {
    (this.apply(u, a), this.capacity(u, b - a));
    const v = this.bound();
    (this.capacity(u, a - b), this.apply(u, -a));
    return v;
  }

  /**
   * The open nodes at the limit: the one being entered (its bound in `open`) and each frame's untried
   * counts, at most two intervals [a, b], each bounded as one node with a flips taken and b - a still
   * undecided. Bounds only grow down the path, so the walk from the root ends at the first frame whose
   * own bound reaches the minimum so far; past its grace it ends at once with that frame's bound.
   */
  openBound(): number {
    const { pr, inRegion, sp } = this;
    const path = Int32Array.from({ length: sp }, (_, d) => this.k[inRegion[d]]);
    for (let d = sp - 1; d >= 0; d--) {
      (this.apply(inRegion[d], -path[d]), this.capacity(inRegion[d], pr.unitCount[inRegion[d]]));
    }
    const until = performance.now() + GRACE * this.limits.workLimitSeconds * 1000;
    let m = this.open;
    for (let d = 0; d < sp && this.fBound[d] < m; d++) {
      if (performance.now() > until) return this.fBound[d];
      const u = inRegion[d], s = this.fStep[d], c = this.fFirst[d], top = this.fTop[d];
      const below = c - Math.floor((s - 1) / 2) - 1, above = c + Math.floor(s / 2) + 1;
      this.capacity(u, -pr.unitCount[u]);
      if (below >= 0) m = Math.min(m, this.span(u, 0, below));
      if (above <= top) m = Math.min(m, this.span(u, above, top));
      this.apply(u, path[d]);
    }
    return m;
  }

  /** The answer: the incumbent's flips (the free units' net change spread over them), status and bound. */
  answer(seconds: number): UnitSolution {
    const { pr, best, nodes, aborted } = this, limit = this.limits.workLimitSeconds;
    if (best === Infinity) {
      const status = aborted
        ? solverStatus(2, `the work limit of ${limit} s passed before a solution was found`)
        : solverStatus(3, "no integer flips reach a positive count in the rate window");
      return { status, unitDelta: null, objective: null, bound: null, seconds };
    }
    const unitDelta = new Float64Array(pr.unitSign.length);
    for (let u = 0; u < unitDelta.length; u++) unitDelta[u] = pr.unitSign[u] * this.bestK[u];
    let f = this.bestFree; // spread over the free units in unit order
    for (const u of this.free) {
      const take = Math.min(pr.unitCount[u], Math.max(0, f * pr.unitSign[u]));
      (unitDelta[u] = pr.unitSign[u] * take, f -= pr.unitSign[u] * take);
    }
    const status = aborted
      ? solverStatus(1, `stopped at the work limit of ${limit} s after ${nodes} nodes; best found reported`)
      : solverStatus(0, `proven by exhausting the search (${nodes} nodes)`);
    return { status, unitDelta, objective: best, bound: aborted ? this.open : best, seconds };
  }
}

/**
 * The exact optimum over integer flips for overlapping regions, within `workLimitSeconds`. `start`
 * (flips k_u ≥ 0 per unit, e.g. the rounded approx solution, found in `spentSeconds` of the limit)
 * seeds the incumbent when it is feasible and better than no flips; the search visits its
 * neighbourhood first (each unit's count is tried from the start's value outwards). `nodeLimit` stops
 * the search after that many nodes as the work limit would (deterministic, for tests).
 */
export function solveExactOverlapping(
  pr: MitigationProblem,
  workLimitSeconds: number,
  start: Int32Array | null = null,
  spentSeconds = 0,
  nodeLimit = Infinity,
  onProgress?: OnProgress,
): UnitSolution {
  const t0 = performance.now(), deadline = t0 + (workLimitSeconds - spentSeconds) * 1000;
  const search = new OverlapSearch(pr, start, { workLimitSeconds, deadline, nodeLimit, onProgress });
  search.run();
  return search.answer((performance.now() - t0) / 1000);
}
