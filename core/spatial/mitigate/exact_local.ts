/**
 * Local search for PROMIS-Exact over overlapping regions: integer flips k_u improved by moves that each
 * lower the exact objective, until no move does or the deadline passes. Rounding a real solution leaves
 * each region a few members from its best integer count, and on a scan design those residues are most of
 * the objective; four kinds of moves mend them:
 * - single: one more or one fewer flip of a unit (moves newP by one, so every region's term changes: the
 *   totals at P' ± 1 are kept, and the move's value is theirs plus its own regions' change);
 * - pair (exact_pair_moves.ts): one flip moved between neighbouring cells (unit_neighbours.ts), so that
 *   only the regions where they differ change and newP stays; a queue holds the pairs a change may have
 *   made gain, so a search after a few moves looks at few pairs;
 * - swap (exact_swap.ts): one flip given back anywhere and one taken anywhere, where the budget binds;
 * - exchange (exact_exchange.ts): two or three pairs whose effects cancel but on one region class.
 * All keep the budget, the window and each region's cap; the result is never worse than the start. Kicks
 * (iterateFlips) then leave a local optimum to look for a lower one.
 */
import { exactObjective, regionTerm } from "./exact_objective.ts";
import { Rng } from "../../random.ts";
import type { MitigationProblem } from "./problem.ts";
import { unitNeighbours } from "./unit_neighbours.ts";
import { capsAllow, type FlipState as State, flipState, objectiveAt, takeFlips } from "./exact_flip_state.ts";
import { exchanges } from "./exact_exchange.ts";
import { type ExchangeIndex, exchangeIndex } from "./exact_exchange_index.ts";
import { pairMoves, type PairQueue, pairQueue, queueAll, queueChanged } from "./exact_pair_moves.ts";
import { type Exchange, realise } from "./exact_realise.ts";
import { swaps } from "./exact_swap.ts";

/** Integer flips per unit and their objective: what every search answers. */
export interface Flips {
  k: Int32Array;
  objective: number;
}

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

/** A problem's neighbour lists, exchange index (1.5 s and 0.5 s at 206k) and pair queue, built once and kept. */
export interface Neighbourhood {
  near: Int32Array[] | null;
  ix: ExchangeIndex | null;
  q?: PairQueue | null;
}

/** When singles and swaps (the moves that change newP) run: every round, once the others stall, or never. */
type MoveD = "free" | "held" | "never";

/** The state's neighbour lists, index and queue, built if missing. */
function tools(pr: MitigationProblem, hood: Neighbourhood) {
  const near = hood.near ??= unitNeighbours(pr, NEIGHBOURS, MAX_DIFF);
  const ix = hood.ix ??= exchangeIndex(pr, near);
  return { near, ix, q: hood.q ??= pairQueue(ix) };
}

/** Queues the pairs a change since (x0, k0, D0) may have made gain: all of them when newP moved. */
function requeue(q: PairQueue, ix: ExchangeIndex, s: State, x0: Int32Array, k0: Int32Array, D0: number) {
  if (s.D !== D0) queueAll(q);
  else queueChanged(q, ix, s, x0, k0);
}

/**
 * The search from state s (changed in place) until no move gains or `deadline` passes; the pair queue must
 * hold every pair that may gain at s (queueAll for a new state).
 */
function search(
  pr: MitigationProblem,
  t: Float64Array,
  s: State,
  deadline: number,
  mode: MoveD,
  hood: Neighbourhood,
  since: Int32Array | null = null,
): void {
  const { ix, q } = tools(pr, hood);
  let moveD = mode === "free", xEx = since;
  while (performance.now() < deadline) {
    let x0 = s.x.slice(), k0 = s.k.slice(), D0 = s.D;
    const a = moveD ? singles(pr, t, s, deadline) : 0;
    if (a) (requeue(q, ix, s, x0, k0, D0), xEx = null);
    const b = pairMoves(pr, t, s, ix, q, deadline);
    if (b) s.at = [objectiveAt(pr, t, s.x, s.D - 1), s.at[1], objectiveAt(pr, t, s.x, s.D + 1)];
    if (a + b > 0) continue;
    if (performance.now() > deadline) break;
    // neither finds a gain: a flip moved from any unit to any other (where the budget binds, single moves
    // cannot), then exchanges of two or three pairs, which mend what one pair cannot
    (x0 = s.x.slice(), k0 = s.k.slice(), D0 = s.D);
    const c = moveD ? swaps(pr, t, s, deadline) : 0;
    let ex = -1;
    if (c) xEx = null;
    else {
      // the classes that moved since the last round first; a round over all before the search ends, but
      // after a kick (the classes it did not disturb found nothing at the best point)
      ex = exchanges(pr, t, s, ix, deadline, xEx);
      if (!ex && xEx && mode !== "never") ex = exchanges(pr, t, s, ix, deadline);
      xEx = s.x.slice();
    }
    if (c === 0 && ex === 0) {
      if (moveD || mode === "never") break;
      moveD = true;
      continue;
    }
    s.at = [objectiveAt(pr, t, s.x, s.D - 1), s.at[1], objectiveAt(pr, t, s.x, s.D + 1)];
    requeue(q, ix, s, x0, k0, D0);
  }
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
): Flips {
  const s = flipState(pr, t, start);
  queueAll(tools(pr, hood).q);
  search(pr, t, s, deadline, holdD ? "held" : "free", hood);
  return { k: s.k, objective: exactObjective(pr, t, s.x, pr.P + s.D) };
}

/** A copy of the state. */
function copy(s: State): State {
  return { k: s.k.slice(), x: s.x.slice(), D: s.D, used: s.used, at: [...s.at], capLeft: s.capLeft.slice() };
}

/** Pair moves in a kick (each at random, gain or not). */
const KICK_MOVES = 10;

/**
 * Iterated local search from `best` (a local optimum): a kick of KICK_MOVES random pair moves between
 * neighbouring cells, then the search with newP fixed (pairs and exchanges, whose queue makes it cost what
 * the kick disturbed), kept when it ends lower; until `deadline`, then the search with newP free once
 * more. Seeded, so the same problem gives the same answer when the clock allows the same kicks.
 */
export function iterateFlips(
  pr: MitigationProblem,
  t: Float64Array,
  from: Flips,
  deadline: number,
  hood: Neighbourhood,
  seed = 0x6b1c,
): Flips {
  const rng = new Rng(seed), { ix, q } = tools(pr, hood), P = ix.pairA.length;
  let best = flipState(pr, t, from.k), s = copy(best);
  queueAll(q);
  const m: Exchange = { gain: 0, pairs: [0], signs: [1] };
  // the last search, newP free, gets a tenth of the time (a second at most)
  const end = deadline - Math.min(1000, (deadline - performance.now()) / 10);
  for (let idle = 0; P && idle < 10 && performance.now() < end;) {
    let moved = 0;
    for (let j = 0; j < KICK_MOVES; j++) {
      (m.pairs[0] = rng.int(P), m.signs[0] = rng.next() < 0.5 ? -1 : 1);
      if (realise(pr, s, ix, m)) moved++;
    }
    // ten kicks in a row that move nothing: the units have no room to trade
    idle = moved ? 0 : idle + 1;
    queueChanged(q, ix, s, best.x, best.k);
    s.at[1] = exactObjective(pr, t, s.x, pr.P + s.D);
    search(pr, t, s, end, "never", hood, best.x);
    if (s.at[1] < best.at[1]) best = copy(s);
    else {
      const x = s.x, k = s.k;
      s = copy(best);
      queueChanged(q, ix, s, x, k);
    }
  }
  s = copy(best);
  queueAll(q);
  search(pr, t, s, deadline, "free", hood);
  return { k: s.k, objective: exactObjective(pr, t, s.x, pr.P + s.D) };
}

/**
 * The search with newP free from `start`, then kicks until `deadline`, on neighbour lists of its own: what a
 * second core runs from a second start (exact_start.ts), its kicks seeded apart from the first core's.
 */
export function searchAndKick(
  pr: MitigationProblem,
  t: Float64Array,
  start: Int32Array,
  deadline: number,
  seed: number,
): Flips {
  const hood: Neighbourhood = { near: null, ix: null },
    first = improveFlips(pr, t, start, deadline, false, hood);
  return performance.now() < deadline ? iterateFlips(pr, t, first, deadline, hood, seed) : first;
}
