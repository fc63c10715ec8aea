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
  const { N, P, C, dMin, dMax } = pr, R = pr.n.length, U = pr.unitSign.length, t = xlogxTable(N);
  const inRegion: number[] = [], free: number[] = [];
  for (let u = 0; u < U; u++) (pr.unitRegStart[u + 1] > pr.unitRegStart[u] ? inRegion : free).push(u);
  inRegion.sort((a, b) => pr.unitCount[b] - pr.unitCount[a]);
  let freeUp = 0, freeDown = 0;
  for (const u of free) pr.unitSign[u] > 0 ? (freeUp += pr.unitCount[u]) : (freeDown += pr.unitCount[u]);
  // search state: positives per region, D, flips used, capacity still undecided per region and overall
  const x = pr.p.slice(), remUp = new Int32Array(R), remDown = new Int32Array(R), k = new Int32Array(U);
  // flips each region may still take (max_flips_per_region; a large number without caps)
  const capLeft = capsLeft(pr);
  let D = 0, used = 0, allUp = freeUp, allDown = freeDown;
  for (const u of inRegion) {
    const c = pr.unitCount[u];
    pr.unitSign[u] > 0 ? (allUp += c) : (allDown += c);
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      pr.unitSign[u] > 0 ? (remUp[pr.unitRegions[r]] += c) : (remDown[pr.unitRegions[r]] += c);
    }
  }
  let best = dMin <= 0 && 0 <= dMax ? exactObjective(pr, t, x, P) : Infinity;
  let bestK = k.slice(), bestFree = 0, aborted = false, nodes = 0;
  if (start) {
    const v = evaluate(pr, t, start);
    if (v < best) {
      (best = v, bestK = start.slice(), bestFree = 0);
      // units in no region enter through D only: the leaves settle them as one net count
      for (const u of free) (bestFree += pr.unitSign[u] * start[u], bestK[u] = 0);
    }
  }
  const tol = () => 1e-9 * Math.max(1, Math.abs(best));
  const apply = (u: number, dk: number) => {
    const d = pr.unitSign[u] * dk;
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      (x[pr.unitRegions[r]] += d, capLeft[pr.unitRegions[r]] -= dk);
    }
    (k[u] += dk, D += d, used += dk);
  };
  // c more (c < 0: fewer) of unit u's flips still undecided, in its regions and overall
  const capacity = (u: number, c: number) => {
    pr.unitSign[u] > 0 ? (allUp += c) : (allDown += c);
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      pr.unitSign[u] > 0 ? (remUp[pr.unitRegions[r]] += c) : (remDown[pr.unitRegions[r]] += c);
    }
  };
  const bound = (): number => {
    const left = C - used;
    const lo = P + Math.max(dMin, D - Math.min(allDown, left)),
      hi = P + Math.min(dMax, D + Math.min(allUp, left));
    if (lo > hi) return Infinity;
    let sum = 0;
    for (let i = 0; i < R; i++) {
      if (pr.n[i] === 0 || pr.n[i] === N) continue;
      sum += regionBound(
        t,
        pr.n[i],
        N,
        x[i],
        x[i] - Math.min(remDown[i], left, capLeft[i]),
        x[i] + Math.min(remUp[i], left, capLeft[i]),
        lo,
        hi,
      );
    }
    return sum;
  };
  const leaf = () => {
    const left = C - used;
    const f0 = Math.max(dMin - D, -Math.min(freeDown, left)), f1 = Math.min(dMax - D, Math.min(freeUp, left));
    for (let f = f0; f <= f1; f++) {
      const v = exactObjective(pr, t, x, P + D + f);
      if (v < best - tol()) (best = v, bestK = k.slice(), bestFree = f);
    }
  };
  // frame d decides unit inRegion[d]: its node's bound, the largest count, the first count, the next step
  const L = inRegion.length, fBound = new Float64Array(L);
  const fTop = new Int32Array(L), fFirst = new Int32Array(L), fStep = new Int32Array(L);
  let sp = 0, open = Infinity;
  // the node of the current state, at depth sp: stop, prune, settle a leaf, or push its frame
  const enter = () => {
    // every 1,024 nodes: the clock, and the incumbent for a caller that shows it (its bound: the root's)
    if ((++nodes & 1023) === 0 && onProgress && fBound.length) {
      onProgress({ phase: "exact search", objective: Number.isFinite(best) ? best : null, bound: fBound[0] });
    }
    if (((nodes & 1023) === 0 && performance.now() > deadline) || nodes > nodeLimit) {
      (aborted = true, open = bound());
      return;
    }
    const b = bound();
    if (b >= best - tol()) return;
    if (sp === L) return leaf();
    const u = inRegion[sp];
    let top = Math.min(pr.unitCount[u], C - used);
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      top = Math.min(top, capLeft[pr.unitRegions[r]]);
    }
    capacity(u, -pr.unitCount[u]);
    // counts from the seed's value outwards: c, c+1, c-1, c+2, ... within [0, top]
    (fBound[sp] = b, fTop[sp] = top, fFirst[sp] = Math.min(top, start ? start[u] : 0), fStep[sp++] = 0);
  };
  // The open nodes at the limit: the one being entered (its bound in `open`) and each frame's untried
  // counts, at most two intervals [a, b], each bounded as one node with a flips taken and b - a still
  // undecided. Bounds only grow down the path, so the walk from the root ends at the first frame whose
  // own bound reaches the minimum so far; past its grace it ends at once with that frame's bound.
  const openBound = (): number => {
    const path = Int32Array.from({ length: sp }, (_, d) => k[inRegion[d]]);
    for (let d = sp - 1; d >= 0; d--) {
      (apply(inRegion[d], -path[d]), capacity(inRegion[d], pr.unitCount[inRegion[d]]));
    }
    const span = (u: number, a: number, b: number) => {
      (apply(u, a), capacity(u, b - a));
      const v = bound();
      (capacity(u, a - b), apply(u, -a));
      return v;
    };
    const until = performance.now() + GRACE * workLimitSeconds * 1000;
    let m = open;
    for (let d = 0; d < sp && fBound[d] < m; d++) {
      if (performance.now() > until) return fBound[d];
      const u = inRegion[d], s = fStep[d], c = fFirst[d], top = fTop[d];
      const below = c - Math.floor((s - 1) / 2) - 1, above = c + Math.floor(s / 2) + 1;
      capacity(u, -pr.unitCount[u]);
      if (below >= 0) m = Math.min(m, span(u, 0, below));
      if (above <= top) m = Math.min(m, span(u, above, top));
      apply(u, path[d]);
    }
    return m;
  };
  enter();
  while (sp > 0 && !aborted) {
    const d = sp - 1, u = inRegion[d], top = fTop[d], c = fFirst[d];
    let j = -1;
    while (j < 0 && fStep[d] <= 2 * top) {
      const step = fStep[d]++, v = c + (step % 2 ? (step + 1) / 2 : -step / 2);
      if (v >= 0 && v <= top) j = v;
    }
    if (j < 0) {
      (apply(u, -k[u]), capacity(u, pr.unitCount[u]), sp--);
      continue;
    }
    apply(u, j - k[u]);
    enter();
  }
  // every term of the objective is clamped at 0, so 0 bounds it too (the tables leave 1e-15 below)
  if (aborted) open = Math.max(0, Math.min(best, openBound()));
  const seconds = (performance.now() - t0) / 1000;
  if (best === Infinity) {
    const status = aborted
      ? solverStatus(2, `the work limit of ${workLimitSeconds} s passed before a solution was found`)
      : solverStatus(3, "no integer flips reach a positive count in the rate window");
    return { status, unitDelta: null, objective: null, bound: null, seconds };
  }
  const unitDelta = new Float64Array(U);
  for (let u = 0; u < U; u++) unitDelta[u] = pr.unitSign[u] * bestK[u];
  let f = bestFree; // spread the free units' net change over them, in unit order
  for (const u of free) {
    const take = Math.min(pr.unitCount[u], Math.max(0, f * pr.unitSign[u]));
    (unitDelta[u] = pr.unitSign[u] * take, f -= pr.unitSign[u] * take);
  }
  const status = aborted
    ? solverStatus(
      1,
      `stopped at the work limit of ${workLimitSeconds} s after ${nodes} nodes; best found reported`,
    )
    : solverStatus(0, `proven by exhausting the search (${nodes} nodes)`);
  return { status, unitDelta, objective: best, bound: aborted ? open : best, seconds };
}
