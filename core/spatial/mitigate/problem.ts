/**
 * The data every mitigation solver shares (docs/spatial-fairness.md "Relabel mitigation (PROMIS)"): N, P, the
 * flip budget C, the integer window of D = newP - P, and the individuals grouped into *units*.
 *
 * A unit is a set of interchangeable individuals: same region memberships (signature) and same
 * prediction. Flipping any k of a unit's members changes every region of the signature by the same
 * amount, so solvers decide one integer/real per unit (how many flip) instead of one per individual:
 * - disjoint regions: a region's negatives form one "up" unit (0 → 1, δ ∈ [0, n_i - p_i]) and its
 *   positives one "down" unit (1 → 0, δ ∈ [-p_i, 0]); δ_i = up - down is the model's per-region δ_i
 *   split into its positive and negative parts (the |δ_i| linearisation without extra rows);
 * - overlapping regions: the model's per-individual δ_j ∈ [-1, 0] (y_j = 1) or [0, 1] (y_j = 0),
 *   aggregated over interchangeable individuals (the LP over the aggregate has the same optimum).
 * Individuals in no region (they count in N and P either way):
 * - disjoint regions: no unit, so they never flip. The disjoint model decides one δ_i per
 *   region and sets newP = P + Σ_i δ_i over the regions; there is no variable for anyone else.
 * - overlapping regions: units like any other (the model gives every individual its δ_j): flipping
 *   them moves only newP, which every solver counts (newP = P + the sum over EVERY individual
 *   variable, never only over the first R: the reference's defect).
 */
import { type Signatures, signatures } from "../signatures.ts";
import type { Regions } from "../types.ts";

/** A product within this of an integer counts as that integer (0.29·100 = 28.999999999999996 is 29). */
const SNAP = 1e-9;

/** The mitigation problem over the individuals in scope. */
export interface MitigationProblem {
  /** Individuals and positives in scope. */
  N: number;
  P: number;
  /** Flip budget: at most C individuals change prediction. */
  C: number;
  /** Window of D = newP - P (integers, dMin ≤ 0 ≤ dMax), already intersected with [-C, C]. */
  dMin: number;
  dMax: number;
  /** Per region: size n_i and positives p_i. */
  n: Int32Array;
  p: Int32Array;
  /** True when some individual sits in two or more regions. */
  overlapping: boolean;
  /** Per unit: +1 (its members are 0 and may flip up) or -1 (members are 1, may flip down). */
  unitSign: Int8Array;
  /** Per unit: how many members it has (its capacity). */
  unitCount: Int32Array;
  /** Regions of unit u: unitRegions[unitRegStart[u] .. unitRegStart[u+1]), ascending (empty: in no region). */
  unitRegStart: Int32Array;
  unitRegions: Int32Array;
  /**
   * Members of unit u (scope positions, ascending): unitMembers[unitMemStart[u] .. unitMemStart[u+1]).
   * With disjoint regions the individuals in no region belong to no unit.
   */
  unitMemStart: Int32Array;
  unitMembers: Int32Array;
  /**
   * Per region, the most of its members that may flip (max_flips_per_region), or null for no such cap.
   * Frozen regions (frozen_regions) have no cap here: their members are in no unit, so none flips.
   */
  regionCap: Int32Array | null;
}

/**
 * The region of unit u when regions are disjoint, where it is exactly one (individuals in no region
 * have no unit): the disjoint solvers decide per region, so they gather units by it.
 */
export function unitRegion(pr: MitigationProblem, u: number): number {
  const at = pr.unitRegStart[u];
  if (pr.unitRegStart[u + 1] - at !== 1) throw new Error(`unit ${u} is not in exactly one region`);
  return pr.unitRegions[at];
}

/** Validated parameters of a mitigation (the request's budget_constr and pr_constr). */
export interface MitigationParams {
  /** budget_constr: ≤ 1 a fraction of N (C = floor(fraction·N)), > 1 an absolute count (floored). */
  budget: number;
  /** pr_constr: relative tolerance s ≥ 0 of the positive rate. */
  prTol: number;
  /** frozen_regions, as region positions: their members never flip (they still count in n, p, N, P). */
  frozen?: ArrayLike<number>;
  /** max_flips_per_region: ≤ 1 a fraction of each region's members (floored), > 1 a count; null: none. */
  maxFlips?: number | null;
}

/** C from budget_constr: a value ≤ 1 is a fraction of N (floor(fraction·N)), a value > 1 a count (floor). */
export function flipBudget(budget: number, N: number): number {
  // budget_constr is checked at the edge (the request schema): another value here is a caller's bug
  if (!(Number.isFinite(budget) && budget >= 0)) {
    throw new RangeError(`budget ${budget}: a finite number ≥ 0`);
  }
  return budget <= 1 ? Math.floor(budget * N + SNAP) : Math.floor(budget + SNAP);
}

/**
 * The integer window of newP: [ceil(max(0, (1-s)·P)), floor(min(N, (1+s)·P))]: the rate bounds
 * max(0, (1-s)ρ), min(1, (1+s)ρ) times N, rounded inwards (a real bound within 1e-9·max(1, P) of an
 * integer snaps to it first). It always contains P, and is exactly [P, P] when s = 0.
 */
export function rateWindow(P: number, N: number, s: number): [number, number] {
  // pr_constr is checked at the edge (the request schema): another value here is a caller's bug
  if (!(Number.isFinite(s) && s >= 0)) throw new RangeError(`rate tolerance ${s}: a finite number ≥ 0`);
  const eps = SNAP * Math.max(1, P);
  const lo = Math.max(0, Math.ceil(Math.max(0, (1 - s) * P) - eps));
  const hi = Math.floor(Math.min(N, (1 + s) * P) + eps);
  return [Math.min(lo, P), Math.max(hi, P)];
}

/** Each region's cap from max_flips_per_region, read as budget_constr is (≤ 1 a fraction of n_i). */
function regionCaps(n: Int32Array, maxFlips: number): Int32Array {
  return Int32Array.from(
    n,
    (ni) => (maxFlips <= 1 ? Math.floor(maxFlips * ni + SNAP) : Math.floor(maxFlips + SNAP)),
  );
}

/**
 * The problem without the units that sit in a frozen region: their members keep their predictions, and
 * count in every region's n and p as before (the solvers read n and p from the problem, not the units).
 */
function withoutFrozen(pr: MitigationProblem, frozen: ArrayLike<number>): MitigationProblem {
  const isFrozen = new Uint8Array(pr.n.length), U = pr.unitSign.length, keep: number[] = [];
  for (let k = 0; k < frozen.length; k++) isFrozen[frozen[k]] = 1;
  for (let u = 0; u < U; u++) {
    let ok = true;
    for (let k = pr.unitRegStart[u]; k < pr.unitRegStart[u + 1] && ok; k++) ok = !isFrozen[pr.unitRegions[k]];
    if (ok) keep.push(u);
  }
  if (keep.length === U) return pr;
  const pick = (start: Int32Array, list: Int32Array) => {
    const s = new Int32Array(keep.length + 1);
    keep.forEach((u, c) => (s[c + 1] = s[c] + start[u + 1] - start[u]));
    const out = new Int32Array(s[keep.length]);
    keep.forEach((u, c) => out.set(list.subarray(start[u], start[u + 1]), s[c]));
    return [s, out] as const;
  };
  const [unitRegStart, unitRegions] = pick(pr.unitRegStart, pr.unitRegions);
  const [unitMemStart, unitMembers] = pick(pr.unitMemStart, pr.unitMembers);
  return {
    ...pr,
    unitSign: Int8Array.from(keep, (u) => pr.unitSign[u]),
    unitCount: Int32Array.from(keep, (u) => pr.unitCount[u]),
    unitRegStart,
    unitRegions,
    unitMemStart,
    unitMembers,
  };
}

/** Per position 0..N-1, the regions it belongs to (CSR), ascending region order. */
export function membership(N: number, members: Int32Array[]) {
  const start = new Int32Array(N + 1);
  for (const m of members) for (let t = 0; t < m.length; t++) start[m[t] + 1]++;
  for (let j = 0; j < N; j++) start[j + 1] += start[j];
  const regs = new Int32Array(start[N]), fill = start.slice(0, N);
  for (let r = 0; r < members.length; r++) {
    const m = members[r];
    for (let t = 0; t < m.length; t++) regs[fill[m[t]]++] = r;
  }
  return { start, regs };
}

/**
 * The problem of relabelling `labels` (predictions in scope) over `regions` (members: scope positions);
 * `known`: these regions' signatures when an audit's plan has them (planSignatures), else built here.
 */
export function buildProblem(
  labels: Uint8Array,
  regions: Regions,
  params: MitigationParams,
  known?: Signatures,
): MitigationProblem {
  const N = labels.length, R = regions.members.length;
  let P = 0;
  for (let j = 0; j < N; j++) P += labels[j];
  const C = flipBudget(params.budget, N);
  const [lo, hi] = rateWindow(P, N, params.prTol);
  const n = new Int32Array(R), p = new Int32Array(R);
  regions.members.forEach((m, r) => (n[r] = m.length));
  // interchangeable individuals share a signature (core's partition refinement: no per-individual keys)
  const sig = known ?? signatures(N, regions.members), { regStart, regs } = sig;
  const nRegs = (s: number) => regStart[s + 1] - regStart[s];
  let overlapping = false;
  for (let s = 0; s < sig.count.length && !overlapping; s++) overlapping = nRegs(s) > 1;
  // unit of position j: 2·signature + label; units are then renumbered densely in first-seen order
  // (-1: no unit, for the individuals in no region when regions are disjoint)
  const dense = new Int32Array(2 * sig.count.length).fill(-1), unitOf = new Int32Array(N).fill(-1);
  let U = 0, M = 0;
  for (let j = 0; j < N; j++) {
    if (!overlapping && nRegs(sig.of[j]) === 0) continue;
    const k = 2 * sig.of[j] + labels[j];
    if (dense[k] < 0) dense[k] = U++;
    (unitOf[j] = dense[k], M++);
  }
  const unitSign = new Int8Array(U), unitCount = new Int32Array(U), firstOf = new Int32Array(U);
  for (let j = N - 1; j >= 0; j--) if (unitOf[j] >= 0) (unitCount[unitOf[j]]++, firstOf[unitOf[j]] = j);
  const unitMemStart = new Int32Array(U + 1), unitRegStart = new Int32Array(U + 1);
  for (let u = 0; u < U; u++) {
    const j = firstOf[u];
    unitSign[u] = labels[j] ? -1 : 1;
    unitMemStart[u + 1] = unitMemStart[u] + unitCount[u];
    unitRegStart[u + 1] = unitRegStart[u] + nRegs(sig.of[j]);
  }
  const unitMembers = new Int32Array(M), fill = unitMemStart.slice(0, U);
  for (let j = 0; j < N; j++) if (unitOf[j] >= 0) unitMembers[fill[unitOf[j]]++] = j;
  const unitRegions = new Int32Array(unitRegStart[U]);
  for (let u = 0; u < U; u++) {
    const s = sig.of[firstOf[u]];
    unitRegions.set(regs.subarray(regStart[s], regStart[s + 1]), unitRegStart[u]);
  }
  // a region's positives from its units of label 1 (a pass over the units' regions, not every membership)
  for (let u = 0; u < U; u++) {
    if (unitSign[u] > 0) continue;
    for (let k = unitRegStart[u]; k < unitRegStart[u + 1]; k++) p[unitRegions[k]] += unitCount[u];
  }
  const pr: MitigationProblem = {
    N,
    P,
    C,
    dMin: Math.max(lo - P, -C),
    dMax: Math.min(hi - P, C),
    n,
    p,
    overlapping,
    unitSign,
    unitCount,
    unitRegStart,
    unitRegions,
    unitMemStart,
    unitMembers,
    regionCap: params.maxFlips == null ? null : regionCaps(n, params.maxFlips),
  };
  return params.frozen?.length ? withoutFrozen(pr, params.frozen) : pr;
}
