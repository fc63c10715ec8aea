/**
 * Swap moves for the local search (exact_local.ts): one unit gives a flip back and another, anywhere,
 * takes one. Where the budget binds every flip is spent, so a single move can only give one back, and
 * pair and exchange moves trade only between neighbouring units: nothing moves a flip from where it does
 * least to where it does most. Each ranking values every unit's give-back and take alone, then tries the
 * best TOP of each together, exactly (their shared regions and the newP they make), taking the best swap
 * while one gains; then ranks again.
 */
import { capsAllow, eachChanged, type FlipState, objectiveAt, takeFlips } from "./exact_flip_state.ts";
import { regionTerm } from "./exact_objective.ts";
import type { MitigationProblem } from "./problem.ts";

/** Give-backs and takes tried together per ranking. */
const TOP = 24;

/** A move's value below this counts as a gain (the tables' rounding is ~1e-15 a term). */
const GAIN = 1e-12;

/** The objective at newP = P' + d for d in -2..2 (Infinity outside the window), index d + 2. */
function totals(pr: MitigationProblem, t: Float64Array, s: FlipState): Float64Array {
  return Float64Array.from({ length: 5 }, (_, j) => objectiveAt(pr, t, s.x, s.D + j - 2));
}

/** The objective after unit u changes its regions by du and unit v by dv (v = -1: none), exactly. */
function valueAfter(
  pr: MitigationProblem,
  t: Float64Array,
  s: FlipState,
  T: Float64Array,
  u: number,
  du: number,
  v: number,
  dv: number,
): number {
  const Pn = pr.P + s.D + du + dv;
  let value = T[du + dv + 2];
  if (value === Infinity) return Infinity;
  eachChanged(pr, u, du, v, dv, (i, c) => {
    value += regionTerm(pr, t, i, s.x[i] + c, Pn) - regionTerm(pr, t, i, s.x[i], Pn);
  });
  return value;
}

/** The TOP units of least value for a give-back (dk = -1) or a take (dk = +1) alone. */
function ranked(pr: MitigationProblem, t: Float64Array, s: FlipState, T: Float64Array, dk: number): number[] {
  const U = s.k.length, value = new Float64Array(U).fill(Infinity), ids: number[] = [];
  for (let u = 0; u < U; u++) {
    const nk = s.k[u] + dk;
    if (nk < 0 || nk > pr.unitCount[u] || !capsAllow(pr, s, u, dk)) continue;
    value[u] = valueAfter(pr, t, s, T, u, pr.unitSign[u] * dk, -1, 0);
    if (value[u] < Infinity) ids.push(u);
  }
  return ids.sort((a, b) => value[a] - value[b]).slice(0, TOP);
}

/**
 * Swaps until none of the ranked ones gains or `deadline` passes; the number taken. The budget stays as
 * it is (one flip back, one out); newP moves by up to 2; caps are kept. s.at[1] follows, s.at[0], s.at[2] not.
 */
export function swaps(pr: MitigationProblem, t: Float64Array, s: FlipState, deadline: number): number {
  let moves = 0;
  for (let ranking = 0; performance.now() < deadline; ranking++) {
    let T = totals(pr, t, s), taken = 0;
    const give = ranked(pr, t, s, T, -1), take = ranked(pr, t, s, T, 1);
    for (;;) {
      let best = T[2] - GAIN, g = -1, a = -1;
      for (const u of give) {
        if (s.k[u] === 0) continue;
        for (const v of take) {
          if (v === u || s.k[v] === pr.unitCount[v] || !capsAllow(pr, s, v, 1)) continue;
          const value = valueAfter(pr, t, s, T, u, -pr.unitSign[u], v, pr.unitSign[v]);
          if (value < best) (best = value, g = u, a = v);
        }
      }
      if (g < 0 || performance.now() > deadline) break;
      (takeFlips(pr, s, g, -1), takeFlips(pr, s, a, 1));
      (s.at[1] = best, taken++, T = totals(pr, t, s));
    }
    moves += taken;
    if (!taken) break;
  }
  return moves;
}
