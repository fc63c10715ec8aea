/**
 * PROMIS-Exact written out for tests: the objective recomputed from labels and members after flipping each
 * unit's first members, the optimum by enumerating every integer flip vector, and tiny random instances.
 */
import fc from "fast-check";
import { buildProblem, type MitigationProblem } from "../../../../core/spatial/mitigate/problem.ts";
import type { UnitSolution } from "../../../../core/spatial/mitigate/status.ts";
import { Rng } from "../../../../core/random.ts";
import { xlogxTable } from "../../../../core/spatial/statistic.ts";
import { approxRows } from "../../../../core/spatial/mitigate/approx_bound.ts";
import { rateBound } from "../../../../core/spatial/mitigate/exact_rate_bound.ts";
import { roundHerded } from "../../../../core/spatial/mitigate/exact_round.ts";
import { solveZeroGap } from "../../../../core/spatial/mitigate/zero_gap.ts";
import { regionsOf } from "./fixtures.ts";

/** k ln(k/m) + (m-k) ln(1 - k/m), 0 ln 0 = 0: the log-likelihood term, written out for these tests. */
export function ll(k: number, m: number): number {
  return (k > 0 ? k * Math.log(k / m) : 0) +
    (k < m ? (m - k) * Math.log((m - k) / m) : 0);
}

/** Σ_i max(0, l1_i - l0) after flipping the first counts[u] members of every unit u. */
export function statAfter(
  pr: MitigationProblem,
  labels: Uint8Array,
  members: number[][],
  counts: ArrayLike<number>,
) {
  const y = labels.slice();
  for (let u = 0; u < counts.length; u++) {
    for (let m = 0; m < counts[u]; m++) {
      y[pr.unitMembers[pr.unitMemStart[u] + m]] ^= 1;
    }
  }
  const N = y.length, P = y.reduce((a, b) => a + b, 0), l0 = ll(P, N);
  let sum = 0;
  for (const reg of members) {
    const n = reg.length, p = reg.reduce((a, j) => a + y[j], 0);
    if (n > 0 && n < N) sum += Math.max(0, ll(p, n) + ll(P - p, N - n) - l0);
  }
  return { value: sum, newP: P };
}

/** Calls `visit` with every integer flip vector k_u ∈ [0, count_u] (one array, changed in place between calls). */
export function eachFlipVector(pr: MitigationProblem, visit: (k: Int32Array) => void): void {
  const U = pr.unitCount.length, k = new Int32Array(U);
  for (;;) {
    visit(k);
    let u = 0; // next vector, mixed radix
    while (u < U && k[u] === pr.unitCount[u]) k[u++] = 0;
    if (u === U) return;
    k[u]++;
  }
}

/** The optimum over every integer flip vector k_u ∈ [0, count_u] within the budget and the window. */
export function bruteForce(
  pr: MitigationProblem,
  labels: Uint8Array,
  members: number[][],
): number {
  let best = Infinity;
  eachFlipVector(pr, (k) => {
    const used = k.reduce((a, b) => a + b, 0);
    if (used <= pr.C) {
      const { value, newP } = statAfter(pr, labels, members, k);
      if (newP - pr.P >= pr.dMin && newP - pr.P <= pr.dMax) {
        best = Math.min(best, value);
      }
    }
  });
  return best;
}

/** The unit individual j (a scope position) belongs to, or -1. */
export function unitOf(pr: MitigationProblem, j: number): number {
  for (let u = 0; u < pr.unitSign.length; u++) {
    for (let m = pr.unitMemStart[u]; m < pr.unitMemStart[u + 1]; m++) if (pr.unitMembers[m] === j) return u;
  }
  return -1;
}

/** The solution's flips per unit (|δ_u|, integers). */
export const countsOf = (s: UnitSolution) => Array.from(s.unitDelta!, Math.abs);

/** |a - b| within 1e-9 relative (absolute below 1). */
export const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

/** A tiny instance as fast-check draws it (setUp turns it into a problem). */
export interface Tiny {
  labels: boolean[];
  inRegion: boolean[][];
  budget: number;
  prTol: number;
  seed: number[] | null;
  nodeLimit: number;
}

/** Tiny overlapping instances: labels, regions (individual 0 in regions 0 and 1), budget, rate tolerance. */
export const tiny: fc.Arbitrary<Tiny> = fc.tuple(
  fc.integer({ min: 3, max: 9 }),
  fc.integer({ min: 2, max: 4 }),
)
  .chain(([N, R]) =>
    fc.record({
      labels: fc.array(fc.boolean(), { minLength: N, maxLength: N }),
      inRegion: fc.array(
        fc.array(fc.boolean(), { minLength: R, maxLength: R }),
        {
          minLength: N,
          maxLength: N,
        },
      ),
      budget: fc.constantFrom(0.2, 0.5, 1, 2, 3),
      prTol: fc.constantFrom(0, 0.1, 0.3, 1),
      seed: fc.option(
        fc.array(fc.nat(), { minLength: 2 * N, maxLength: 2 * N }),
      ),
      nodeLimit: fc.integer({ min: 0, max: 40 }),
    })
  );

/** The instance's problem, its members and the optional start (counts within each unit's). */
export function setUp(c: Tiny) {
  const labels = Uint8Array.from(c.labels, Number), R = c.inRegion[0].length;
  const members: number[][] = Array.from({ length: R }, () => []);
  c.inRegion.forEach((row, j) => row.forEach((b, r) => (b || (j === 0 && r < 2)) && members[r].push(j)));
  const pr = buildProblem(labels, regionsOf(members), c);
  const start = c.seed ? Int32Array.from(pr.unitCount, (n, u) => c.seed![u] % (n + 1)) : null;
  return { labels, members, pr, start, opt: bruteForce(pr, labels, members) };
}

/** A scan design: N individuals on a 60 × 60 grid of cells, R random squares of 3 to 10 cells a side. */
export function scanDesign(N: number, R: number, seed: number) {
  const rng = new Rng(seed), G = 60;
  const cell = Int32Array.from({ length: N }, () => Math.floor(rng.next() * G * G));
  const labels = Uint8Array.from(cell, (c) => (rng.next() < 0.35 + 0.3 * ((c % G) / G) ? 1 : 0));
  const members: number[][] = [];
  for (let r = 0; r < R; r++) {
    const s = 3 + Math.floor(rng.next() * 8),
      x0 = Math.floor(rng.next() * (G - s)),
      y0 = Math.floor(rng.next() * (G - s));
    members.push([]);
    cell.forEach((c, j) => {
      const x = c % G, y = Math.floor(c / G);
      if (x >= x0 && x < x0 + s && y >= y0 && y < y0 + s) members[r].push(j);
    });
  }
  return { labels, members };
}

/**
 * A scan design's problem (budget 0.2, pr_constr 0.1, caps maxFlips) with the local search's usual start:
 * the zero-gap flips at the D of least B(P'), rounded against the regions' errors.
 */
export function roundedScanStart(N: number, R: number, seed: number, maxFlips?: number) {
  const { labels, members } = scanDesign(N, R, seed);
  const pr = buildProblem(labels, regionsOf(members), { budget: 0.2, prTol: 0.1, maxFlips });
  const t = xlogxTable(pr.N), D = rateBound(pr, t).dBest!;
  const fixed = { ...pr, dMin: D, dMax: D }, z = solveZeroGap(fixed, approxRows(pr), Infinity)!;
  return { labels, members, pr, t, D, start: roundHerded(pr, t, z.x.map(Math.abs), D) };
}
