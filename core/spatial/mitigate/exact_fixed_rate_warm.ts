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

/**
 * The split problem's state at one P': up flips xu and down flips xd per group, their totals A and B, and a
 * heap per kind of move (take one more up, undo an up, take one more down, undo a down) keyed by its cost.
 */
class WarmState {
  readonly uN: IndexedHeap;
  readonly uU: IndexedHeap;
  readonly dN: IndexedHeap;
  readonly dU: IndexedHeap;
  A = 0;
  B = 0;

  constructor(readonly G: Groups, readonly Pp: number, readonly xu: Int32Array, readonly xd: Int32Array) {
    const nG = G.n.length,
      heap = (f: (g: number) => number) => {
        const keys = new Float64Array(nG);
        for (let g = 0; g < nG; g++) keys[g] = f(g);
        return new IndexedHeap(keys);
      };
    this.uN = heap((g) => this.upNext(g));
    this.uU = heap((g) => this.upUndo(g));
    this.dN = heap((g) => this.downNext(g));
    this.dU = heap((g) => this.downUndo(g));
    for (let g = 0; g < nG; g++) (this.A += xu[g] - G.p[g], this.B += G.p[g] - xd[g]);
  }

  phi(g: number, x: number): number {
    return this.G.active[g] ? phiPart(this.G, g, x, this.Pp) : 0;
  }

  /** The costs (change of the objective) of the four kinds of move of group g. */
  upNext(g: number): number {
    const { G, xu } = this;
    return xu[g] - G.p[g] < G.up[g] ? this.phi(g, xu[g] + 1) - this.phi(g, xu[g]) : Infinity;
  }
  upUndo(g: number): number {
    return this.xu[g] > this.G.p[g] ? this.phi(g, this.xu[g] - 1) - this.phi(g, this.xu[g]) : Infinity;
  }
  downNext(g: number): number {
    const { G, xd } = this;
    return G.p[g] - xd[g] < G.down[g] ? this.phi(g, xd[g] - 1) - this.phi(g, xd[g]) : Infinity;
  }
  downUndo(g: number): number {
    return this.xd[g] < this.G.p[g] ? this.phi(g, this.xd[g] + 1) - this.phi(g, this.xd[g]) : Infinity;
  }

  moveUp(g: number, by: 1 | -1): void {
    (this.xu[g] += by, this.A += by);
    (this.uN.set(g, this.upNext(g)), this.uU.set(g, this.upUndo(g)));
  }
  moveDown(g: number, by: 1 | -1): void {
    (this.xd[g] -= by, this.B += by);
    (this.dN.set(g, this.downNext(g)), this.dU.set(g, this.downUndo(g)));
  }

  /** The cheapest moves until A - B = D; false when no move is left (or `late`). */
  reach(D: number, late: () => boolean): boolean {
    const { uN, uU, dN, dU } = this;
    while (this.A - this.B !== D) {
      if (late()) return false;
      if (this.A - this.B < D) {
        if (uN.topKey() === Infinity && dU.topKey() === Infinity) return false;
        if (uN.topKey() <= dU.topKey()) this.moveUp(uN.topId(), 1);
        else this.moveDown(dU.topId(), -1);
      } else {
        if (dN.topKey() === Infinity && uU.topKey() === Infinity) return false;
        if (dN.topKey() <= uU.topKey()) this.moveDown(dN.topId(), 1);
        else this.moveUp(uU.topId(), -1);
      }
    }
    return true;
  }

  /**
   * Improving swaps and pair moves until none gains more than `eps` (each strictly lowers the cost, so it
   * ends); false if `late`.
   */
  improve(eps: number, late: () => boolean): boolean {
    const { G, uN, uU, dN, dU } = this;
    for (let changed = true; changed;) {
      if (late()) return false;
      changed = true;
      const pairOut = uU.topKey() + dU.topKey(); // Infinity when A or B is 0 (then A + B ≤ |D| ≤ C)
      if (pairOut < Infinity && (this.A + this.B > G.C || pairOut < -eps)) {
        (this.moveUp(uU.topId(), -1), this.moveDown(dU.topId(), -1));
      } else if (uU.topKey() + uN.topKey() < -eps) {
        const g = uU.topId();
        (this.moveUp(g, -1), this.moveUp(uN.topId(), 1));
      } else if (dU.topKey() + dN.topKey() < -eps) {
        const g = dU.topId();
        (this.moveDown(g, -1), this.moveDown(dN.topId(), 1));
      } else if (this.A + this.B + 2 <= G.C && uN.topKey() + dN.topKey() < -eps) {
        (this.moveUp(uN.topId(), 1), this.moveDown(dN.topId(), 1));
      } else changed = false;
    }
    return true;
  }
}

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
  // a state outside the domain at the new P' (a region larger than P' or N - P'): start afresh
  for (let g = 0; g < nG; g++) {
    if (!G.active[g]) continue;
    if (!Number.isFinite(phiPart(G, g, xu[g], Pp)) || !Number.isFinite(phiPart(G, g, xd[g], Pp))) {
      return solveFixedD(G, D, deadline);
    }
  }
  const st = new WarmState(G, Pp, xu, xd);
  // below this a gain is rounding of the x·ln x table (entries up to N ln N, 53-bit mantissas)
  const eps = 16 * N * Math.log(N + 2) * 2 ** -52;
  let steps = 0;
  const late = () => (++steps & 4095) === 0 && performance.now() > deadline;
  if (!st.reach(D, late) || !st.improve(eps, late)) return null;
  const x = new Int32Array(nG);
  for (let g = 0; g < nG; g++) x[g] = xu[g] + xd[g] - G.p[g];
  // as solveFixedD: the last taken marginal of a kind is minus the cost of undoing it
  const thetaU = mid(-st.uU.topKey(), st.uN.topKey()), thetaD = mid(-st.dU.topKey(), st.dN.topKey());
  return {
    D,
    x,
    value: objectiveOf(G, x, Pp),
    lambda: (thetaU - thetaD) / 2,
    mu: Math.max(0, -(thetaU + thetaD) / 2),
    saturated: st.A + st.B + 2 > G.C,
    xu,
    xd,
  };
}
