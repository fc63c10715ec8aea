/**
 * The fixed-newP optimum of exact_fixed_rate.ts, warm-started from the solution at a nearby newP. The
 * branch and bound solves hundreds of neighbouring newP when the budget binds; from scratch each costs
 * C/2 heap steps, while a neighbour's solution is a few moves away.
 *
 * The split problem (up flips a_g, down flips b_g; cost Σ G+_g(a_g) + G-_g(b_g)) is optimal exactly
 * when (1) the up flips taken are the A cheapest up marginals, so no swap "undo the dearest taken up,
 * take the cheapest untaken up" gains, (2) likewise for downs, and (3) A is best for the convex cost
 * F+(A) + F-(A - D): adding a pair (one up, one down) does not gain or breaks the budget, and removing
 * the dearest pair does not gain. So: start from the neighbour's flips, re-price every marginal at the
 * new P', reach A - B = D by the cheapest moves, then apply improving swaps and pair moves until none
 * gains more than the table's rounding (each strictly lowers the cost, so it ends).
 */
import { IndexedHeap } from "./heap.ts";
import {
  type FixedSolution,
  type Groups,
  mid,
  objectiveOf,
  phiPart,
  solveFixedD,
} from "./exact_fixed_rate.ts";

/** The exact optimum at newP = P + D, warm-started from `from`; null as solveFixedD. */
export function solveFixedDWarm(
  G: Groups,
  D: number,
  from: FixedSolution,
  deadline = Infinity,
): FixedSolution | null {
  if (Math.abs(D) > G.C) return null;
  const Pp = G.P + D, nG = G.n.length, N = G.N;
  const xu = from.xu.slice(), xd = from.xd.slice();
  const phi = (g: number, x: number) => (G.active[g] ? phiPart(G, g, x, Pp) : 0);
  // a state outside the domain at the new P' (a region larger than P' or N - P'): start afresh
  for (let g = 0; g < nG; g++) {
    if (!Number.isFinite(phi(g, xu[g])) || !Number.isFinite(phi(g, xd[g]))) {
      return solveFixedD(G, D, deadline);
    }
  }
  // costs (change of the objective) of the four kinds of move, per group
  const upNext = (g: number) => (xu[g] - G.p[g] < G.up[g] ? phi(g, xu[g] + 1) - phi(g, xu[g]) : Infinity);
  const upUndo = (g: number) => (xu[g] > G.p[g] ? phi(g, xu[g] - 1) - phi(g, xu[g]) : Infinity);
  const downNext = (g: number) => (G.p[g] - xd[g] < G.down[g] ? phi(g, xd[g] - 1) - phi(g, xd[g]) : Infinity);
  const downUndo = (g: number) => (xd[g] < G.p[g] ? phi(g, xd[g] + 1) - phi(g, xd[g]) : Infinity);
  const heap = (f: (g: number) => number) => {
    const keys = new Float64Array(nG);
    for (let g = 0; g < nG; g++) keys[g] = f(g);
    return new IndexedHeap(keys);
  };
  const uN = heap(upNext), uU = heap(upUndo), dN = heap(downNext), dU = heap(downUndo);
  let A = 0, B = 0;
  for (let g = 0; g < nG; g++) (A += xu[g] - G.p[g], B += G.p[g] - xd[g]);
  const moveUp = (g: number, by: 1 | -1) => {
    (xu[g] += by, A += by);
    (uN.set(g, upNext(g)), uU.set(g, upUndo(g)));
  };
  const moveDown = (g: number, by: 1 | -1) => {
    (xd[g] -= by, B += by);
    (dN.set(g, downNext(g)), dU.set(g, downUndo(g)));
  };
  // below this a gain is rounding of the x·ln x table (entries up to N ln N, 53-bit mantissas)
  const eps = 16 * N * Math.log(N + 2) * 2 ** -52;
  let steps = 0;
  const late = () => (++steps & 4095) === 0 && performance.now() > deadline;
  while (A - B !== D) {
    if (late()) return null;
    if (A - B < D) {
      if (uN.topKey() === Infinity && dU.topKey() === Infinity) return null;
      if (uN.topKey() <= dU.topKey()) moveUp(uN.topId(), 1);
      else moveDown(dU.topId(), -1);
    } else {
      if (dN.topKey() === Infinity && uU.topKey() === Infinity) return null;
      if (dN.topKey() <= uU.topKey()) moveDown(dN.topId(), 1);
      else moveUp(uU.topId(), -1);
    }
  }
  for (let changed = true; changed;) {
    if (late()) return null;
    changed = true;
    const pairOut = uU.topKey() + dU.topKey(); // Infinity when A or B is 0 (then A + B ≤ |D| ≤ C)
    if (pairOut < Infinity && (A + B > G.C || pairOut < -eps)) {
      (moveUp(uU.topId(), -1), moveDown(dU.topId(), -1));
    } else if (uU.topKey() + uN.topKey() < -eps) {
      const g = uU.topId();
      (moveUp(g, -1), moveUp(uN.topId(), 1));
    } else if (dU.topKey() + dN.topKey() < -eps) {
      const g = dU.topId();
      (moveDown(g, -1), moveDown(dN.topId(), 1));
    } else if (A + B + 2 <= G.C && uN.topKey() + dN.topKey() < -eps) {
      (moveUp(uN.topId(), 1), moveDown(dN.topId(), 1));
    } else changed = false;
  }
  const x = new Int32Array(nG);
  for (let g = 0; g < nG; g++) x[g] = xu[g] + xd[g] - G.p[g];
  // as solveFixedD: the last taken marginal of a kind is minus the cost of undoing it
  const thetaU = mid(-uU.topKey(), uN.topKey()), thetaD = mid(-dU.topKey(), dN.topKey());
  return {
    D,
    x,
    value: objectiveOf(G, x, Pp),
    lambda: (thetaU - thetaD) / 2,
    mu: Math.max(0, -(thetaU + thetaD) / 2),
    saturated: A + B + 2 > G.C,
    xu,
    xd,
  };
}
