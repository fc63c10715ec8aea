/**
 * Local search for PROMIS-Exact over overlapping regions: integer flips k_u improved by moves that each
 * lower the exact objective, until no move does or the deadline passes. Rounding a real solution leaves
 * each region a few members from its best integer count, and on a scan design those residues are most of
 * the objective; four kinds of moves mend them:
 * - single: one more or one fewer flip of a unit (moves newP by one, so every region's term changes: the
 *   totals at P' ± 1 are kept, and the move's value is theirs plus its own regions' change);
 * - pair: one flip moved between neighbouring units (unit_neighbours.ts), so that only the regions where
 *   they differ change and newP stays;
 * - swap (exact_swap.ts): one flip given back anywhere and one taken anywhere, where the budget binds;
 * - exchange (exact_exchange.ts): two or three pairs whose effects cancel but on one region class.
 * All keep the budget, the window and each region's cap; the result is never worse than the start. Kicks
 * (iterateFlips) then leave a local optimum to look for a lower one.
 */
import { capsKept, exactObjective, positivesAfter, regionTerm } from "./exact_objective.ts";
import { Rng } from "../../random.ts";
import type { MitigationProblem } from "./problem.ts";
import { unitNeighbours } from "./unit_neighbours.ts";
import {
  capsAllow,
  eachChanged,
  type FlipState as State,
  flipState,
  objectiveAt,
  takeCaps,
  takeFlips,
} from "./exact_flip_state.ts";
import { exchanges } from "./exact_exchange.ts";
import { type ExchangeIndex, exchangeIndex } from "./exact_exchange_index.ts";
import { swaps } from "./exact_swap.ts";

/** Neighbours per unit and the largest difference in regions a pair move may have. */
const NEIGHBOURS = 24, MAX_DIFF = 40;

/** A move's value below this counts as a gain (the tables' rounding is ~1e-15 a term). */
const GAIN = 1e-12;

/** One round of single moves over every unit; the number of moves taken. */
function singles(pr: MitigationProblem, t: Float64Array, s: State, deadline: number): number {
  const total = (Pp: number) => exactObjective(pr, t, s.x, Pp);
  let moves = 0;
  for (let u = 0; u < s.k.length; u++) {
    if ((u & 255) === 0 && performance.now() > deadline) break;
    for (const dk of [1, -1]) {
      const nk = s.k[u] + dk, d = pr.unitSign[u] * dk, nD = s.D + d;
      if (nk < 0 || nk > pr.unitCount[u] || s.used + dk > pr.C || nD < pr.dMin || nD > pr.dMax) continue;
      if (!capsAllow(pr, s, u, dk)) continue;
      const Pn = pr.P + nD;
      let v = s.at[1 + d];
      for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
        const i = pr.unitRegions[r];
        v += regionTerm(pr, t, i, s.x[i] + d, Pn) - regionTerm(pr, t, i, s.x[i], Pn);
      }
      if (!(v < s.at[1] - GAIN)) continue;
      (takeFlips(pr, s, u, dk), moves++);
      s.at = [total(Pn - 1), v, total(Pn + 1)];
      break;
    }
  }
  return moves;
}

/** True when u's du and v's dv more flips together keep every region's cap. */
function pairAllowed(pr: MitigationProblem, s: State, u: number, du: number, v: number, dv: number): boolean {
  if (!pr.regionCap || (du <= 0 && dv <= 0)) return true;
  // the smaller change first (one giving a flip back always fits), then the other on top of it
  const [a, da, b, db] = du <= dv ? [u, du, v, dv] : [v, dv, u, du];
  if (!capsAllow(pr, s, a, da)) return false;
  takeCaps(pr, s, a, da);
  const ok = capsAllow(pr, s, b, db);
  takeCaps(pr, s, a, -da);
  return ok;
}

/** One round of pair moves over every unit and its neighbours; the number of moves taken. */
function pairs(
  pr: MitigationProblem,
  t: Float64Array,
  s: State,
  near: Int32Array[],
  deadline: number,
): number {
  const Pp = pr.P + s.D;
  let moves = 0, gain = 0;
  const value = (i: number, e: number) =>
    gain += regionTerm(pr, t, i, s.x[i] + e, Pp) - regionTerm(pr, t, i, s.x[i], Pp);
  const move = (i: number, e: number) => s.x[i] += e;
  for (let u = 0; u < s.k.length; u++) {
    if ((u & 255) === 0 && performance.now() > deadline) break;
    for (const du of [1, -1]) {
      const ku = s.k[u] + du;
      if (ku < 0 || ku > pr.unitCount[u]) continue;
      let taken = false;
      for (const v of near[u]) {
        // v takes the opposite change of the regions, so D stays: its count moves by -sign_u·du/sign_v
        const dv = -pr.unitSign[u] * du * pr.unitSign[v], kv = s.k[v] + dv;
        if (kv < 0 || kv > pr.unitCount[v] || s.used + du + dv > pr.C) continue;
        // a region both share may pass a flip from one to the other; two new flips must both fit
        if (!pairAllowed(pr, s, u, du, v, dv)) continue;
        gain = 0;
        eachChanged(pr, u, pr.unitSign[u] * du, v, -pr.unitSign[u] * du, value);
        taken = gain < -GAIN;
        if (taken) {
          eachChanged(pr, u, pr.unitSign[u] * du, v, -pr.unitSign[u] * du, move);
          (s.k[u] = ku, s.k[v] = kv, s.used += du + dv, s.at[1] += gain, moves++);
          (takeCaps(pr, s, u, du), takeCaps(pr, s, v, dv));
          break;
        }
      }
      if (taken) break;
    }
  }
  if (moves) s.at = [exactObjective(pr, t, s.x, Pp - 1), s.at[1], exactObjective(pr, t, s.x, Pp + 1)];
  return moves;
}

/** A problem's neighbour lists and exchange index (1.5 s and 0.5 s at 206k), built on first use and kept. */
export interface Neighbourhood {
  near: Int32Array[] | null;
  ix: ExchangeIndex | null;
}

/**
 * Feasible integer flips k (within the budget, the window and the caps) improved by single, pair, swap and
 * exchange moves until none finds a gain or `deadline` (ms, performance.now()) passes; returns the flips and
 * their objective. `holdD`: single moves and swaps (the moves that change newP) wait until the others find
 * nothing, so that newP stays where the start put it; taken early they drift it by dozens, to where the
 * start's residues were cheapest to mend rather than where the bound is least. Neither order wins everywhere.
 * `hood`: neighbour lists and exchange index kept from an earlier search of the same problem.
 */
export function improveFlips(
  pr: MitigationProblem,
  t: Float64Array,
  start: Int32Array,
  deadline: number,
  holdD = false,
  hood: Neighbourhood = { near: null, ix: null },
): { k: Int32Array; objective: number } {
  const s = flipState(pr, t, start);
  let moveD = !holdD;
  for (let round = 0; performance.now() < deadline; round++) {
    const a = moveD ? singles(pr, t, s, deadline) : 0;
    if (performance.now() > deadline) break;
    const near = hood.near ??= unitNeighbours(pr, NEIGHBOURS, MAX_DIFF);
    const b = pairs(pr, t, s, near, deadline);
    if (a + b > 0) continue;
    // neither finds a gain: a flip moved from any unit to any other (where the budget binds, single moves
    // cannot), then exchanges of two or three pairs, which mend what one pair cannot
    const c = moveD ? swaps(pr, t, s, deadline) : 0;
    const ix = hood.ix ??= exchangeIndex(pr, near);
    if (performance.now() > deadline) break;
    if (c === 0 && exchanges(pr, t, s, ix, deadline) === 0) {
      if (moveD) break;
      moveD = true;
      continue;
    }
    s.at = [objectiveAt(pr, t, s.x, s.D - 1), s.at[1], objectiveAt(pr, t, s.x, s.D + 1)];
  }
  return { k: s.k, objective: exactObjective(pr, t, s.x, pr.P + s.D) };
}

/** Pair moves in a kick (each at random, gain or not), and the time a kick's search needs at least. */
const KICK_MOVES = 30, KICK_MS = 1500;

/**
 * Iterated local search from `best` (a local optimum): a kick of KICK_MOVES random pair moves between
 * neighbours, then the search with newP held, kept when it ends lower; until `deadline`. Seeded, so the
 * same problem gives the same answer when the clock allows the same kicks.
 */
export function iterateFlips(
  pr: MitigationProblem,
  t: Float64Array,
  best: { k: Int32Array; objective: number },
  deadline: number,
  hood: Neighbourhood,
): { k: Int32Array; objective: number } {
  const rng = new Rng(0x6b1c), near = hood.near ??= unitNeighbours(pr, NEIGHBOURS, MAX_DIFF);
  for (let idle = 0; idle < 10 && performance.now() < deadline - KICK_MS;) {
    const k = best.k.slice();
    let moved = 0;
    for (let j = 0; j < KICK_MOVES; j++) {
      const u = rng.int(k.length), nb = near[u];
      if (!nb.length) continue;
      const v = nb[rng.int(nb.length)], du = k[u] > 0 && rng.next() < 0.5 ? -1 : 1;
      const dv = -pr.unitSign[u] * du * pr.unitSign[v];
      if (k[u] + du < 0 || k[u] + du > pr.unitCount[u] || k[v] + dv < 0 || k[v] + dv > pr.unitCount[v]) {
        continue;
      }
      (k[u] += du, k[v] += dv, moved++);
    }
    // ten kicks in a row that move nothing: the units have (almost) no neighbours to trade with
    idle = moved ? 0 : idle + 1;
    // a kick keeps D; the budget and the caps it may break
    if (!moved || positivesAfter(pr, k).used > pr.C || !capsKept(pr, k)) continue;
    const r = improveFlips(pr, t, k, deadline, true, hood);
    if (r.objective < best.objective) best = r;
  }
  return best;
}
