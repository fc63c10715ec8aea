/**
 * Exchange moves for the local search (exact_local.ts): one pair move forward and another back, chosen
 * so that their effects cancel on every region but one class (or two). A pair move alone (one flip
 * between neighbouring units) changes every region where the two units differ, and on a scan design that
 * is rarely a single region, so a region left one count from its best integer count after rounding often
 * has no pair move that mends it alone; two pairs whose effects differ in that region do, or else three.
 * newP stays; the budget and the caps are kept. The index (exact_exchange_index.ts) finds the last pair by
 * hash.
 */
import type { FlipState } from "./exact_flip_state.ts";
import { type Exchange, plan, realise } from "./exact_realise.ts";
import { type ExchangeIndex, pairsHashed } from "./exact_exchange_index.ts";
import { regionTerm } from "./exact_objective.ts";
import type { MitigationProblem } from "./problem.ts";

/** A move's value below this counts as a gain (the tables' rounding is ~1e-15 a term). */
const GAIN = 1e-12;

/** True when τ·effect(q) equals σ·effect(p) without classes c and j (j = -1: only c). */
function matches(ix: ExchangeIndex, p: number, sigma: number, q: number, tau: number, c: number, j: number) {
  const { effect, effStart } = ix;
  let e = effStart[q];
  for (let f = effStart[p]; f < effStart[p + 1]; f++) {
    const cl = Math.abs(effect[f]) - 1;
    if (cl === c || cl === j) continue;
    if (e === effStart[q + 1] || tau * effect[e] !== sigma * effect[f]) return false;
    e++;
  }
  return e === effStart[q + 1];
}

/** The pairs q with τ·effect(q) = σ·effect(p) minus d on class c and s on class j, pushed to `out`. */
function seconds(
  ix: ExchangeIndex,
  p: number,
  sigma: number,
  c: number,
  d: number,
  j: number,
  s: number,
  gain: number,
  out: Exchange[],
  doable: (m: Exchange) => boolean,
): void {
  let a = sigma * ix.h1[p] - d * ix.r1[c], b = sigma * ix.h2[p] - d * ix.r2[c];
  if (j >= 0) (a -= s * ix.r1[j], b -= s * ix.r2[j]);
  const left = ix.effStart[p + 1] - ix.effStart[p] - (j >= 0 ? 2 : 1);
  const offer = (m: Exchange) => doable(m) && out.push(m);
  if (left === 0) return void offer({ gain, pairs: [p], signs: [sigma] });
  for (let tau = 1; tau >= -1; tau -= 2) {
    pairsHashed(ix, tau * a, tau * b, (q) => {
      if (q !== p && matches(ix, p, sigma, q, tau, c, j)) {
        offer({ gain, pairs: [p, q], signs: [sigma, -tau] });
      }
    });
  }
}

/** Effects longer than this take no part in three-pair exchanges (they rarely cancel). */
const SHORT = 10;

/** Hash lookups one class may spend on three-pair exchanges, and all classes together, in a round. */
const LOOKUPS = 40_000, ROUND_LOOKUPS = 4_000_000;

/** True when the exchange's legs add up to d on class c and nothing else (acc: zeros, left as found). */
function cancels(ix: ExchangeIndex, m: Exchange, c: number, d: number, acc: Int32Array): boolean {
  const touched: number[] = [c];
  acc[c] -= d;
  for (let l = 0; l < m.pairs.length; l++) {
    for (let e = ix.effStart[m.pairs[l]]; e < ix.effStart[m.pairs[l] + 1]; e++) {
      const cl = Math.abs(ix.effect[e]) - 1;
      (acc[cl] += m.signs[l] * Math.sign(ix.effect[e]), touched.push(cl));
    }
  }
  let zero = true;
  for (const cl of touched) (zero &&= acc[cl] === 0, acc[cl] = 0);
  return zero;
}

/** c's sign in pair p's effect (0: not in it) and the first other class there with its sign (-1: none). */
function signs(ix: ExchangeIndex, p: number, c: number): [number, number, number] {
  let sc = 0, j = -1, sj = 0;
  for (let e = ix.effStart[p]; e < ix.effStart[p + 1]; e++) {
    const cl = Math.abs(ix.effect[e]) - 1;
    if (cl === c) sc = Math.sign(ix.effect[e]);
    else if (j < 0) (j = cl, sj = Math.sign(ix.effect[e]));
  }
  return [sc, j, sj];
}

/**
 * The first exchange of three pairs that changes class c alone by d and that the units and the budget
 * allow: p holding c, q1 cancelling the first other class j of p's effect, q2 found by hash as the rest.
 * Only short effects take part, and a class spends at most LOOKUPS lookups, taken from `budget.left`
 * (a round's ROUND_LOOKUPS: where the budget binds, most classes would gain and none finds a move).
 */
function threePairs(
  ix: ExchangeIndex,
  c: number,
  d: number,
  gain: number,
  doable: (m: Exchange) => boolean,
  acc: Int32Array,
  budget: { left: number },
): Exchange | null {
  const size = (p: number) => ix.effStart[p + 1] - ix.effStart[p], most = Math.min(LOOKUPS, budget.left);
  let lookups = 0;
  const spend = <T>(v: T) => ((budget.left -= Math.min(lookups, most)), v);
  for (const p of ix.byClass[c]) {
    if (size(p) > SHORT) break;
    const [sc, j, sj] = signs(ix, p, c), sigma = d * sc;
    if (j < 0) continue; // p alone: the two-pair search has it
    const a0 = sigma * ix.h1[p] - d * ix.r1[c], b0 = sigma * ix.h2[p] - d * ix.r2[c];
    for (const q1 of ix.byClass[j]) {
      if (size(q1) > SHORT || ++lookups > most) break;
      if (q1 === p) continue;
      // τ1 effect(q1) carries p's sign at j, so that taking it back cancels j
      const tau1 = sigma * sj * signs(ix, q1, j)[0], a = a0 - tau1 * ix.h1[q1], b = b0 - tau1 * ix.h2[q1];
      let found: Exchange | null = null;
      for (let tau2 = 1; tau2 >= -1 && !found; tau2 -= 2) {
        pairsHashed(ix, tau2 * a, tau2 * b, (q2) => {
          const m = { gain, pairs: [p, q1, q2], signs: [sigma, -tau1, -tau2] };
          if (!found && q2 !== p && q2 !== q1 && cancels(ix, m, c, d, acc) && doable(m)) found = m;
        });
      }
      if (found) return spend(found);
    }
    if (lookups > most) break;
  }
  return spend(null);
}

/**
 * One round over the region classes at the state's newP: each class that gains from one count more or
 * fewer takes the best exchange that the units, the budget and the caps allow, alone or with a second
 * class that gains too. `since`: positives per region after an earlier round at the same newP; only the
 * classes whose positives moved since are tried (where the budget binds a round over all of them spends
 * its 4 M lookups: 1.5 s at 206k). Returns the number of moves taken; s.at[1] follows, s.at[0] and
 * s.at[2] do not.
 */
export function exchanges(
  pr: MitigationProblem,
  t: Float64Array,
  s: FlipState,
  ix: ExchangeIndex,
  deadline: number,
  since: Int32Array | null = null,
): number {
  const Pp = pr.P + s.D, R = pr.n.length;
  // each class's change of value when all its regions move by +1 (gainUp) or -1 (gainDown)
  const gainUp = new Float64Array(R), gainDown = new Float64Array(R);
  const refresh = (c: number) => {
    let up = 0, down = 0;
    for (const i of ix.members[c]) {
      const now = regionTerm(pr, t, i, s.x[i], Pp);
      (up += regionTerm(pr, t, i, s.x[i] + 1, Pp) - now, down += regionTerm(pr, t, i, s.x[i] - 1, Pp) - now);
    }
    (gainUp[c] = up, gainDown[c] = down);
  };
  for (let c = 0; c < R; c++) if (ix.classOf[c] === c) refresh(c);
  const change = (c: number, d: number) => (d > 0 ? gainUp[c] : gainDown[c]);
  let moves = 0;
  const found: Exchange[] = [], doable = (m: Exchange) => plan(pr, s, ix, m) > 0, acc = new Int32Array(R);
  const budget = { left: ROUND_LOOKUPS };
  for (let c = 0; c < R; c++) {
    if (ix.classOf[c] !== c || !ix.byClass[c].length || (since && since[c] === s.x[c])) continue;
    if ((c & 63) === 0 && performance.now() > deadline) break;
    const d = gainUp[c] < gainDown[c] ? 1 : -1, gc = change(c, d);
    if (!(gc < -GAIN)) continue;
    found.length = 0;
    for (const p of ix.byClass[c]) {
      const sigma = d * signs(ix, p, c)[0];
      seconds(ix, p, sigma, c, d, -1, 0, gc, found, doable);
      for (let e = ix.effStart[p]; e < ix.effStart[p + 1]; e++) {
        const j = Math.abs(ix.effect[e]) - 1, sj = sigma * Math.sign(ix.effect[e]);
        if (j === c) continue;
        const g = gc + change(j, sj);
        if (g < -GAIN) seconds(ix, p, sigma, c, d, j, sj, g, found, doable);
      }
    }
    found.sort((a, b) => a.gain - b.gain);
    // none of two pairs: one of three, for c alone
    if (!found.length) {
      const three = budget.left > 0 ? threePairs(ix, c, d, gc, doable, acc, budget) : null;
      if (three) found.push(three);
    }
    for (const m of found) {
      if (realise(pr, s, ix, m)) {
        (s.at[1] += m.gain, moves++);
        // c, and a second class if any: one of the classes of p's effect
        for (let e = ix.effStart[m.pairs[0]]; e < ix.effStart[m.pairs[0] + 1]; e++) {
          refresh(Math.abs(ix.effect[e]) - 1);
        }
        break;
      }
    }
  }
  return moves;
}
