/**
 * Small random mitigation instances and the brute-force optimum over every subset of flips, computed
 * from the definitions of docs/spatial-fairness.md directly (rates, not our integer window; the statistic with logarithms).
 */
import assert from "node:assert/strict";
import { Rng } from "../../../../core/random.ts";
import { rawStat } from "../../../../core/spatial/statistic.ts";
import type { Regions } from "../../../../core/spatial/types.ts";

export interface Instance {
  labels: Uint8Array;
  regions: Regions;
  budget: number;
  prTol: number;
}

/** Regions from member lists. */
export function regionsOf(members: number[][]): Regions {
  return {
    source: "region_ids",
    ids: members.map((_, r) => r),
    members: members.map((m) => Int32Array.from(m)),
    polygons: null,
    unassigned: 0,
  };
}

/** A random instance: N individuals, R regions, disjoint or overlapping, some individuals in no region. */
export function randomInstance(rng: Rng, N: number, R: number, overlapping: boolean): Instance {
  const labels = Uint8Array.from({ length: N }, () => (rng.next() < 0.3 + 0.4 * rng.next() ? 1 : 0));
  const members: number[][] = Array.from({ length: R }, () => []);
  for (let j = 0; j < N; j++) {
    if (rng.next() < 0.15) continue; // in no region
    if (overlapping) {
      let any = false;
      for (let r = 0; r < R; r++) if (rng.next() < 0.45) (members[r].push(j), any = true);
      if (!any) members[rng.int(R)].push(j);
    } else members[rng.int(R)].push(j);
  }
  const budget = [0.1, 0.2, 0.3, 0.5, 1, 2, 3][rng.int(7)];
  const prTol = [0, 0.05, 0.1, 0.2, 0.5, 1][rng.int(6)];
  return { labels, regions: regionsOf(members), budget, prTol };
}

/** Σ_i (l1_i - l0) of predictions `y` over the regions. */
export function totalStat(y: Uint8Array, regions: Regions): number {
  const N = y.length;
  let P = 0;
  for (const v of y) P += v;
  let sum = 0;
  for (const m of regions.members) {
    let p = 0;
    for (const j of m) p += y[j];
    sum += rawStat(p, m.length, P, N);
  }
  return sum;
}

/**
 * The minimum of totalStat over every set of flips within budget and rate window, by enumeration
 * (with disjoint regions, only of individuals in some region).
 */
export function bruteForce(inst: Instance): { value: number; flips: number } {
  const { labels, regions, budget, prTol } = inst, N = labels.length;
  const C = budget <= 1 ? Math.floor(budget * N + 1e-9) : Math.floor(budget);
  let P = 0;
  for (const v of labels) P += v;
  const rho = P / N, rLo = Math.max(0, (1 - prTol) * rho), rHi = Math.min(1, (1 + prTol) * rho);
  let best = Infinity, flips = -1;
  // the disjoint model has one δ per region: individuals in no region cannot flip there
  const inRegions = new Int32Array(N);
  for (const m of regions.members) for (const j of m) inRegions[j]++;
  const disjoint = inRegions.every((c) => c <= 1);
  let fixed = 0;
  for (let j = 0; j < N; j++) if (disjoint && inRegions[j] === 0) fixed |= 1 << j;
  const y = labels.slice();
  for (let mask = 0; mask < 1 << N; mask++) {
    if (mask & fixed) continue;
    let count = 0, newP = P;
    for (let j = 0; j < N; j++) {
      const f = (mask >> j) & 1;
      y[j] = labels[j] ^ f;
      count += f;
      if (f) newP += labels[j] ? -1 : 1;
    }
    if (count > C) continue;
    const rate = newP / N;
    if (rate < rLo - 1e-12 || rate > rHi + 1e-12) continue;
    const v = totalStat(y, regions);
    if (v < best - 1e-12) (best = v, flips = count);
  }
  return { value: best, flips };
}

/** Asserts |a - b| ≤ tol. */
export function close(a: number, b: number, tol: number, msg = ""): void {
  assert.ok(Math.abs(a - b) <= tol, `${msg}: ${a} vs ${b} (tolerance ${tol})`);
}
