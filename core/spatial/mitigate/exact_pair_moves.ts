/**
 * Pair moves for the local search (exact_local.ts): one flip moved between neighbouring cells (the
 * exchange index's pairs, exact_exchange_index.ts), which changes only the region classes where the two
 * differ, so newP stays. A pair's value depends on those classes' positives alone, so after a move only
 * the pairs that share one of its classes (or one of its cells, whose units' flips bound what a pair can
 * take) can newly gain: a worklist holds them, and a search after a few moves looks at a few pairs rather
 * than at every unit's 24 neighbours again (a round over all of them: 0.4 s at 206k).
 */
import type { FlipState } from "./exact_flip_state.ts";
import type { ExchangeIndex } from "./exact_exchange_index.ts";
import { regionTerm } from "./exact_objective.ts";
import { type Exchange, realise } from "./exact_realise.ts";
import type { MitigationProblem } from "./problem.ts";

/** A move's value below this counts as a gain (the tables' rounding is ~1e-15 a term). */
const GAIN = 1e-12;

/** The pairs still to look at, those that gained but could not be taken (each once), and each cell's pairs. */
export interface PairQueue {
  queued: Uint8Array;
  ring: Int32Array;
  head: number;
  size: number;
  blocked: number[];
  isBlocked: Uint8Array;
  cellStart: Int32Array;
  cellPairs: Int32Array;
}

/** An empty queue over the index's pairs. */
export function pairQueue(ix: ExchangeIndex): PairQueue {
  const P = ix.pairA.length, C = ix.cellUp.length, cellStart = new Int32Array(C + 1);
  for (let p = 0; p < P; p++) (cellStart[ix.pairA[p] + 1]++, cellStart[ix.pairB[p] + 1]++);
  for (let c = 0; c < C; c++) cellStart[c + 1] += cellStart[c];
  const cellPairs = new Int32Array(cellStart[C]), fill = cellStart.slice(0, C);
  for (let p = 0; p < P; p++) (cellPairs[fill[ix.pairA[p]]++] = p, cellPairs[fill[ix.pairB[p]]++] = p);
  return {
    queued: new Uint8Array(P),
    ring: new Int32Array(P),
    head: 0,
    size: 0,
    blocked: [],
    isBlocked: new Uint8Array(P),
    cellStart,
    cellPairs,
  };
}

/** Queues pair p unless it is queued already. */
function push(q: PairQueue, p: number): void {
  if (q.queued[p]) return;
  q.queued[p] = 1;
  q.ring[(q.head + q.size++) % q.ring.length] = p;
}

/** Queues every pair (the state is new, or newP moved: every class's value changed); none is blocked then. */
export function queueAll(q: PairQueue): void {
  (q.blocked.length = 0, q.isBlocked.fill(0));
  for (let p = 0; p < q.ring.length; p++) push(q, p);
}

/** Queues the pairs whose effect holds class c (their value moves with its positives). */
function queueClass(q: PairQueue, ix: ExchangeIndex, c: number): void {
  for (const p of ix.byClass[c]) push(q, p);
}

/** Queues the pairs of cell `cell` (what they can take moves with its units' flips). */
function queueCell(q: PairQueue, cell: number): void {
  for (let j = q.cellStart[cell]; j < q.cellStart[cell + 1]; j++) push(q, q.cellPairs[j]);
}

/**
 * Queues the pairs whose value or room changed since `x0`, `k0` (positives and flips before other moves):
 * those of every class whose positives moved and of every cell whose units' flips did.
 */
export function queueChanged(
  q: PairQueue,
  ix: ExchangeIndex,
  s: FlipState,
  x0: Int32Array,
  k0: Int32Array,
): void {
  for (let i = 0; i < x0.length; i++) if (s.x[i] !== x0[i]) queueClass(q, ix, ix.classOf[i]);
  for (let u = 0; u < k0.length; u++) if (s.k[u] !== k0[u]) queueCell(q, ix.cellOf[u]);
}

/** The change of the objective when pair p moves σ (+1 on cell a's classes, -1 on b's; σ = -1: reverse). */
function pairValue(
  pr: MitigationProblem,
  t: Float64Array,
  s: FlipState,
  ix: ExchangeIndex,
  p: number,
  sigma: number,
) {
  const Pp = pr.P + s.D;
  let v = 0;
  for (let e = ix.effStart[p]; e < ix.effStart[p + 1]; e++) {
    const c = Math.abs(ix.effect[e]) - 1, d = sigma * Math.sign(ix.effect[e]);
    // a class's regions have the same members, so the same positives and the same term
    const x = s.x[c], m = ix.members[c].length;
    v += m * (regionTerm(pr, t, c, x + d, Pp) - regionTerm(pr, t, c, x, Pp));
  }
  return v;
}

/**
 * Takes pair moves from the queue until it is empty (then those that gained but could not be taken, again
 * while moves are found) or `deadline` passes; the number taken. s.at[1] follows, s.at[0] and s.at[2] not.
 */
export function pairMoves(
  pr: MitigationProblem,
  t: Float64Array,
  s: FlipState,
  ix: ExchangeIndex,
  q: PairQueue,
  deadline: number,
): number {
  let moves = 0, sinceBlocked = 0;
  const m: Exchange = { gain: 0, pairs: [0], signs: [1] };
  for (let n = 0;; n++) {
    if (q.size === 0) {
      // the budget, the caps or a unit's room stopped a gain: any move since may have made room
      if (!sinceBlocked || !q.blocked.length) break;
      for (const p of q.blocked.splice(0)) (q.isBlocked[p] = 0, push(q, p));
      sinceBlocked = 0;
    }
    if ((n & 1023) === 0 && performance.now() > deadline) break;
    const p = q.ring[q.head];
    (q.head = (q.head + 1) % q.ring.length, q.size--, q.queued[p] = 0);
    for (const sigma of [1, -1]) {
      const gain = pairValue(pr, t, s, ix, p, sigma);
      if (!(gain < -GAIN)) continue;
      (m.pairs[0] = p, m.signs[0] = sigma, m.gain = gain);
      if (!realise(pr, s, ix, m)) {
        if (!q.isBlocked[p]) (q.isBlocked[p] = 1, q.blocked.push(p));
        continue;
      }
      (s.at[1] += gain, moves++, sinceBlocked++);
      for (let e = ix.effStart[p]; e < ix.effStart[p + 1]; e++) queueClass(q, ix, Math.abs(ix.effect[e]) - 1);
      (queueCell(q, ix.pairA[p]), queueCell(q, ix.pairB[p]));
      break;
    }
  }
  return moves;
}
