/**
 * From a solver's δ to flipped individuals (notes/spatial-fairness.md "From δ to flips").
 * Rounding: half to even, as the reference did, after snapping a value within 1e-9 of a multiple of
 * 1/2 to it (so solver noise like 2.4999999999 rounds as 2.5 would, to 2).
 * - Disjoint regions: a region's δ_i (its up unit minus its down unit) rounds to k; the first |k|
 *   members by index with prediction 0 (k > 0) or 1 (k < 0) flip. Individuals in no region are one
 *   more such group.
 * - Overlapping regions: every individual's δ_j rounds on its own. A unit's x_u = Σ of its members'
 *   δ_j is spread over its members by index: the first floor(|x_u|) get ±1, the next the remainder.
 *   This is a solution of the per-individual LP with the same objective (the LP depends on the
 *   members only through their sum), so it is the per-individual rounding the notes ask for.
 */
import type { MitigationProblem } from "./problem.ts";

/** Rounds half to even, after snapping values within 1e-9 of a multiple of 1/2. */
export function roundHalfEven(v: number): number {
  const half = Math.round(2 * v) / 2;
  const x = Math.abs(v - half) <= 1e-9 ? half : v;
  const f = Math.floor(x), r = x - f;
  if (r < 0.5) return f;
  if (r > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/** Overlapping regions: how many members of each unit flip when each member's δ_j rounds on its own. */
export function unitFlipCounts(pr: MitigationProblem, unitDelta: Float64Array): Int32Array {
  return Int32Array.from(unitDelta, (v, u) => {
    const a = Math.abs(v), whole = Math.floor(a + 1e-9);
    return Math.min(pr.unitCount[u], whole + (roundHalfEven(Math.max(0, a - whole)) >= 1 ? 1 : 0));
  });
}

/** Which scope positions flip (ascending), from the real/integer flips x_u of every unit. */
export function flipsFromUnits(pr: MitigationProblem, unitDelta: Float64Array): Int32Array {
  const U = pr.unitSign.length, out: number[] = [];
  const take = (u: number, k: number) => {
    for (let t = pr.unitMemStart[u]; t < pr.unitMemStart[u] + k; t++) out.push(pr.unitMembers[t]);
  };
  if (pr.overlapping) {
    const k = unitFlipCounts(pr, unitDelta);
    for (let u = 0; u < U; u++) take(u, k[u]);
  } else {
    // group = the unit's region, or R for individuals in no region; net δ per group, then round
    const R = pr.n.length, net = new Float64Array(R + 1);
    const up = new Int32Array(R + 1).fill(-1), down = new Int32Array(R + 1).fill(-1);
    for (let u = 0; u < U; u++) {
      const g = pr.unitRegStart[u + 1] > pr.unitRegStart[u] ? pr.unitRegions[pr.unitRegStart[u]] : R;
      net[g] += unitDelta[u];
      if (pr.unitSign[u] > 0) up[g] = u;
      else down[g] = u;
    }
    for (let g = 0; g <= R; g++) {
      const k = roundHalfEven(net[g]);
      if (k > 0 && up[g] >= 0) take(up[g], Math.min(k, pr.unitCount[up[g]]));
      if (k < 0 && down[g] >= 0) take(down[g], Math.min(-k, pr.unitCount[down[g]]));
    }
  }
  return Int32Array.from(out).sort();
}

/** δ of every region: the sum of its units' flips (real for approx, integer for exact). */
export function regionsDelta(pr: MitigationProblem, unitDelta: Float64Array): Float64Array {
  const out = new Float64Array(pr.n.length);
  for (let u = 0; u < unitDelta.length; u++) {
    for (let k = pr.unitRegStart[u]; k < pr.unitRegStart[u + 1]; k++) out[pr.unitRegions[k]] += unitDelta[u];
  }
  return out;
}
