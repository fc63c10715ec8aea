/**
 * Integer flips from a hull relaxation's real ones by diving (docs/spatial-fairness.md "The hull bound"):
 * the units the relaxation leaves at an integer are fixed there, then the fractional units nearest an
 * integer, a share at a time, and the relaxation is solved again over the units still free, so that what
 * the fixed ones round away the free ones take up. Rounding each unit against the regions' errors alone
 * (exact_round.ts) leaves most regions off their best count at once: on the LAR-like EO 2,000 case the hull
 * point at D −250 (24.78) rounded to 33.8 and searched to 26.0; dived, 25.3 and 25.1.
 */
import { approxRows } from "./approx_bound.ts";
import { chainsOf } from "./approx_chains.ts";
import { hullAtD } from "./exact_hull.ts";
import { roundHerded } from "./exact_round.ts";
import type { MitigationProblem } from "./problem.ts";

/** Within this of an integer a unit's real flips count as that integer and are fixed there. */
const SNAP = 0.02;

/**
 * The share of the fractional units fixed each round (those nearest an integer): each round's relaxation
 * is over fewer units, so the whole dive took 8 rounds and 0.9 s at 206k (0.15: 16 rounds, no better).
 */
const SHARE = 0.3;

/** The problem over the units `free` alone, every other unit's flips `fixed` folded into p, P, C, caps. */
export function restrictTo(pr: MitigationProblem, fixed: Int32Array, free: number[]): MitigationProblem {
  const p = pr.p.slice(), cap = pr.regionCap?.slice() ?? null;
  let used = 0, shift = 0;
  for (let u = 0; u < fixed.length; u++) {
    const k = fixed[u], d = pr.unitSign[u] * k;
    if (!k) continue;
    (used += k, shift += d);
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      p[pr.unitRegions[r]] += d;
      if (cap) cap[pr.unitRegions[r]] -= k;
    }
  }
  const regStart = new Int32Array(free.length + 1), regions: number[] = [];
  free.forEach((u, j) => {
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) regions.push(pr.unitRegions[r]);
    regStart[j + 1] = regions.length;
  });
  return {
    ...pr,
    P: pr.P + shift,
    p,
    C: pr.C - used,
    dMin: pr.dMin - shift,
    dMax: pr.dMax - shift,
    unitSign: Int8Array.from(free, (u) => pr.unitSign[u]),
    unitCount: Int32Array.from(free, (u) => pr.unitCount[u]),
    unitRegStart: regStart,
    unitRegions: Int32Array.from(regions),
    // the relaxation needs no members, only counts
    unitMemStart: new Int32Array(free.length + 1),
    unitMembers: new Int32Array(0),
    regionCap: cap,
  };
}

/**
 * Integer flips at D from the hull relaxation's real flips `k` (most: its pieces a side), by `deadline`
 * (performance.now() ms): rounds of fixing and solving again as above, the last few units rounded against
 * the regions' errors (roundHerded). Null when a round's relaxation has no solution (the fixed flips left
 * none: over the budget or a cap); the caller keeps its other candidates.
 */
export function diveHull(
  pr: MitigationProblem,
  t: Float64Array,
  k: Float64Array,
  D: number,
  deadline: number,
  most: number,
): Int32Array | null {
  const U = k.length, fixed = new Int32Array(U), isFixed = new Uint8Array(U), real = k.slice();
  let used = 0;
  const fix = (u: number, v: number) => (isFixed[u] = 1, fixed[u] = v, used += v);
  while (performance.now() < deadline) {
    const open: number[] = [];
    for (let u = 0; u < U; u++) {
      if (isFixed[u]) continue;
      Math.abs(real[u] - Math.round(real[u])) < SNAP ? fix(u, Math.round(real[u])) : open.push(u);
    }
    if (!open.length) break;
    const off = (u: number) => Math.abs(real[u] - Math.round(real[u]));
    open.sort((a, b) => off(a) - off(b));
    const n = Math.max(1, Math.floor(open.length * SHARE));
    // rounding up past the budget would leave the rest nothing to solve: down instead
    for (const u of open.slice(0, n)) {
      fix(u, used + Math.round(real[u]) > pr.C ? Math.floor(real[u]) : Math.round(real[u]));
    }
    const free = open.slice(n);
    if (!free.length) break;
    const sub = restrictTo(pr, fixed, free), rows = approxRows(sub);
    const h = hullAtD(sub, t, rows, chainsOf(rows), D - (sub.P - pr.P), deadline, most);
    if (!h) return null;
    free.forEach((u, j) => (real[u] = h.k[j]));
  }
  for (let u = 0; u < U; u++) if (isFixed[u]) real[u] = fixed[u];
  return roundHerded(pr, t, real, D);
}
