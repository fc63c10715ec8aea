/**
 * How a move on cells (exact_exchange_index.ts: the units of one region set) becomes flips of units: each
 * cell's change is made with the fewest new flips, and taken only where the units, the budget and every
 * cap allow it. Shared by pair moves (exact_pair_moves.ts) and exchanges (exact_exchange.ts).
 */
import { capsAllow, type FlipState, takeFlips } from "./exact_flip_state.ts";
import type { ExchangeIndex } from "./exact_exchange_index.ts";
import type { MitigationProblem } from "./problem.ts";

/** An exchange: each pair pairs[l] taken signs[l] times (+1 on its cell a, -1 on b; -1: the reverse), and its value. */
export interface Exchange {
  gain: number;
  pairs: number[];
  signs: number[];
}

/** The exchange's cells and their changes (+δ on the cell's regions), duplicates merged: at most six. */
const cells = new Int32Array(6),
  deltas = new Int32Array(6),
  planU = new Int32Array(12),
  planK = new Int32Array(12);

/**
 * Plans the exchange's change of each cell with the fewest new flips: a label-1 unit's flips taken back
 * before a label-0 unit's are added (and the mirror for -δ), into planU/planK. Returns the number of
 * steps, 0 when the units or the budget cannot take it.
 */
export function plan(pr: MitigationProblem, s: FlipState, ix: ExchangeIndex, m: Exchange): number {
  let n = 0;
  const add = (cell: number, d: number) => {
    for (let i = 0; i < n; i++) if (cells[i] === cell) return void (deltas[i] += d);
    (cells[n] = cell, deltas[n++] = d);
  };
  for (let l = 0; l < m.pairs.length; l++) {
    (add(ix.pairA[m.pairs[l]], m.signs[l]), add(ix.pairB[m.pairs[l]], -m.signs[l]));
  }
  let steps = 0, more = 0;
  for (let i = 0; i < n; i++) {
    const d = deltas[i], cell = cells[i];
    const back = d > 0 ? ix.cellDown[cell] : ix.cellUp[cell],
      on = d > 0 ? ix.cellUp[cell] : ix.cellDown[cell];
    let rest = Math.abs(d);
    const undo = back >= 0 ? Math.min(rest, s.k[back]) : 0;
    if (undo) (planU[steps] = back, planK[steps++] = -undo, rest -= undo, more -= undo);
    const take = on >= 0 ? Math.min(rest, pr.unitCount[on] - s.k[on]) : 0;
    if (take) (planU[steps] = on, planK[steps++] = take, rest -= take, more += take);
    if (rest) return 0;
  }
  return s.used + more > pr.C ? 0 : steps;
}

/** Takes the exchange when plan() finds its units and budget and every cap allows it; false, nothing changed, else. */
export function realise(pr: MitigationProblem, s: FlipState, ix: ExchangeIndex, m: Exchange): boolean {
  const steps = plan(pr, s, ix, m);
  if (!steps) return false;
  // flips given back first: they free the caps the new ones need
  const order = Array.from({ length: steps }, (_, i) => i).sort((x, y) => planK[x] - planK[y]);
  for (let i = 0; i < steps; i++) {
    const j = order[i];
    if (!capsAllow(pr, s, planU[j], planK[j])) {
      for (let h = i - 1; h >= 0; h--) takeFlips(pr, s, planU[order[h]], -planK[order[h]]);
      return false;
    }
    takeFlips(pr, s, planU[j], planK[j]);
  }
  return true;
}
