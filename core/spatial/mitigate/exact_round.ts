/**
 * Integer flips from real ones (least squares', a relaxation's) for PROMIS-Exact over overlapping regions.
 * Rounding each unit on its own leaves every region the sum of its units' rounding errors: on a scan design
 * of ~100 regions per unit that is tens of members off the best count (an objective hundreds of times the
 * bound), which the local search then mends by moving newP away from where the bound is lowest. Here units
 * are rounded one after another, each up or down as keeps the regions' errors so far smallest together
 * (weighted by how fast each region's term grows), as discrepancy rounding does; then D is brought back
 * to the relaxation's by the cheapest single flips. The budget and the caps are kept throughout.
 */
import { capsLeft, regionTerm } from "./exact_objective.ts";
import type { MitigationProblem } from "./problem.ts";

/** Weight of D's error next to a region's (1/(n r (1 - r)), ~1e-3 on a scan design): D is held hard. */
const D_WEIGHT = 1;

/** Single flips towards D at most (callers check the window; far off, the point is a poor start anyway). */
const MAX_STEPS = 64;

/** A fraction below this is an integer already. */
const SNAP = 1e-9;

/** Per region: the count its rounding aims at (the better integer beside the real count) and its weight. */
function aims(pr: MitigationProblem, t: Float64Array, xr: Float64Array, Pp: number) {
  const R = pr.n.length, target = new Float64Array(R), w = new Float64Array(R), r = Pp / pr.N;
  for (let i = 0; i < R; i++) {
    const lo = Math.max(0, Math.min(pr.n[i], Math.floor(xr[i]))), hi = Math.min(pr.n[i], lo + 1);
    target[i] = regionTerm(pr, t, i, hi, Pp) < regionTerm(pr, t, i, lo, Pp) ? hi : lo;
    // the term grows as (x - n r)^2 / (2 n r (1 - r)) near the overall rate r
    w[i] = 1 / Math.max(1, pr.n[i] * r * (1 - r));
  }
  return { target, w };
}

/** The change of Σ w_i e_i^2 over unit u's regions when each error moves by d (D's term not included). */
function cost(pr: MitigationProblem, e: Float64Array, w: Float64Array, u: number, d: number): number {
  let c = 0;
  for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
    const i = pr.unitRegions[r];
    c += w[i] * d * (2 * e[i] + d);
  }
  return c;
}

/**
 * Each unit's floor, within what the budget and its regions' caps still allow (a relaxation knows no caps),
 * with the real point's positives per region, D and flips used, and the caps the floors leave.
 */
function floors(pr: MitigationProblem, k: Float64Array) {
  const U = k.length, out = new Int32Array(U), xr = Float64Array.from(pr.p), capLeft = capsLeft(pr);
  let realD = 0, realUsed = 0, used = 0;
  for (let u = 0; u < U; u++) {
    const v = Math.min(pr.unitCount[u], Math.max(0, k[u])), s = pr.unitSign[u] * v;
    let f = Math.min(Math.floor(v + SNAP), pr.C - used);
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      f = Math.min(f, capLeft[pr.unitRegions[r]]);
    }
    (out[u] = Math.max(0, f), realD += s, realUsed += v, used += out[u]);
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      (xr[pr.unitRegions[r]] += s, capLeft[pr.unitRegions[r]] -= out[u]);
    }
  }
  return { out, xr, capLeft, realD, realUsed, used };
}

/**
 * Integer flips per unit from real flips k (k_u ≥ 0 members of unit u) at D = newP - P: within each unit's
 * members, the budget C and the caps, and at D itself unless no single flip can step towards it.
 */
export function roundHerded(pr: MitigationProblem, t: Float64Array, k: Float64Array, D: number): Int32Array {
  const U = k.length, start = floors(pr, k), { out, xr, capLeft, realD, realUsed } = start;
  let used = start.used;
  const { target, w } = aims(pr, t, xr, pr.P + D);
  // errors of the real point against the aims; each unit's rounding moves its regions' by -f or 1 - f
  const e = Float64Array.from(xr, (v, i) => v - target[i]);
  let eD = realD - D;
  // where the real point spends the whole budget, the flips used are held to it as D is
  const wU = realUsed >= pr.C - 0.5 ? D_WEIGHT : 0;
  let eU = realUsed - Math.min(pr.C, Math.floor(realUsed + 0.5));
  const fits = (u: number) => {
    if (used >= pr.C || out[u] >= pr.unitCount[u]) return false;
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      if (capLeft[pr.unitRegions[r]] < 1) return false;
    }
    return true;
  };
  const step = (u: number, dk: number) => {
    const d = pr.unitSign[u] * dk;
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      (e[pr.unitRegions[r]] += d, capLeft[pr.unitRegions[r]] -= dk);
    }
    (out[u] += dk, used += dk, eD += d);
  };
  for (let u = 0; u < U; u++) {
    const v = Math.min(pr.unitCount[u], Math.max(0, k[u])), f = v - out[u], s = pr.unitSign[u];
    if (f <= SNAP) continue;
    // a floor the budget or the caps cut: its shortfall stays in the errors, it takes no more flips
    if (f >= 1) {
      for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) e[pr.unitRegions[r]] -= s * f;
      (eD -= s * f, eU -= f);
      continue;
    }
    const down = cost(pr, e, w, u, -s * f) + D_WEIGHT * -s * f * (2 * eD - s * f) + wU * -f * (2 * eU - f);
    const up = cost(pr, e, w, u, s * (1 - f)) + D_WEIGHT * s * (1 - f) * (2 * eD + s * (1 - f)) +
      wU * (1 - f) * (2 * eU + 1 - f);
    // the floor is already in `out`: the errors move by the fraction dropped, or by the flip added
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) e[pr.unitRegions[r]] -= s * f;
    (eD -= s * f, eU -= f);
    if (up < down && fits(u)) (step(u, 1), eU++);
  }
  // D itself: the cheapest flip towards it, one at a time (a flip taken back frees budget and caps); each
  // step scans every unit, so at most MAX_STEPS of them (herding leaves D a step or two off, if at all)
  let at = 0;
  for (let u = 0; u < U; u++) at += pr.unitSign[u] * out[u];
  for (let steps = 0; at !== D && steps < MAX_STEPS; steps++) {
    const dir = Math.sign(D - at);
    let best = -1, bestCost = Infinity, bestDk = 0;
    for (let u = 0; u < U; u++) {
      const dk = dir * pr.unitSign[u];
      if (dk < 0 ? out[u] === 0 : !fits(u)) continue;
      const c = cost(pr, e, w, u, dir);
      if (c < bestCost) (best = u, bestCost = c, bestDk = dk);
    }
    if (best < 0) break;
    (step(best, bestDk), at += dir);
  }
  return out;
}
