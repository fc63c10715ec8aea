/**
 * From a solver's δ to flipped individuals (docs/spatial-fairness.md "From δ to flips").
 *
 * Plain rounding (the documented rule, kept whenever its result is feasible): half to even, as the
 * reference did, after snapping a value within 1e-9 of a multiple of 1/2 to it (so solver noise like
 * 2.4999999999 rounds as 2.5 would, to 2).
 * - Disjoint regions: a region's δ_i (its up unit minus its down unit) rounds to k; the first |k|
 *   members by index with prediction 0 (k > 0) or 1 (k < 0) flip. Individuals in no region have no
 *   unit (problem.ts) and never flip.
 * - Overlapping regions: every individual's δ_j rounds on its own. A unit's x_u = Σ of its members'
 *   δ_j is spread over its members by index: the first floor(|x_u|) get ±1, the next the remainder.
 *   This is a solution of the per-individual LP with the same objective (the LP depends on the
 *   members only through their sum), so it is the per-individual rounding the model asks for.
 *
 * Which members of a unit flip (`chooseMembers`, after the counts are fixed): by `flip_order`. The
 * members of a unit are interchangeable for the model, so the choice never changes the objective, the
 * per-region counts or the status.
 * - "index": the first k_u by collection order (the reference's choice);
 * - "uncertainty": the members the model was least sure of: to 1 (unit of 0s) the highest
 *   probability first, to 0 (unit of 1s) the lowest first;
 * - "random": a seeded random k_u.
 * Ties ("uncertainty": equal probabilities) break by a seeded random order, so a request always gives
 * the same flips.
 *
 * Rounding each value on its own can break the constraints the LP kept (two regions at +0.5 and
 * -1.5 under s = 0 round to 0 and -2: newP moves by 2), so when plain rounding breaks the flip budget
 * or the newP window, the rounding units (regions, or units of individuals) are rounded under the
 * constraints instead (`roundUnderConstraints`). Either way n_flips ≤ C and newP ∈ [lo, hi].
 */
import { Rng } from "../../random.ts";
import { type MitigationProblem, unitRegion } from "./problem.ts";

const SNAP = 1e-9;

/** Rounds half to even, after snapping values within 1e-9 of a multiple of 1/2. */
export function roundHalfEven(v: number): number {
  const half = Math.round(2 * v) / 2;
  const x = Math.abs(v - half) <= SNAP ? half : v;
  const f = Math.floor(x), r = x - f;
  if (r < 0.5) return f;
  if (r > 0.5) return f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/** Toward zero, after snapping a value within 1e-9 of an integer to it. */
function truncSnapped(v: number): number {
  const r = Math.round(v);
  return Math.abs(v - r) <= SNAP ? r : Math.trunc(v);
}

/** The integer rounding problem: one real value per rounding unit, its integer range, the constraints. */
export interface RoundingInput {
  /** The solver's real value of each rounding unit. */
  values: Float64Array;
  /** Integer range of each unit's value (lo ≤ 0 ≤ hi: its flip capacity down and up). */
  lo: Int32Array;
  hi: Int32Array;
  /** The plain rounding rule, applied to one value. */
  plain: (v: number) => number;
  /** Flip budget C (Σ|k| ≤ C) and window of D = Σ k (dMin ≤ D ≤ dMax). */
  C: number;
  dMin: number;
  dMax: number;
  /** max_flips_per_region: each rounding unit's regions (CSR) and each region's cap, when there are caps. */
  caps?: { start: Int32Array; regions: Int32Array; cap: Int32Array } | null;
}

/** Flips per region of integers k (Σ|k_g| over the rounding units in it), for the caps' checks. */
function regionFlips(k: Int32Array, caps: NonNullable<RoundingInput["caps"]>): Int32Array {
  const f = new Int32Array(caps.cap.length);
  for (let g = 0; g < k.length; g++) {
    const a = Math.abs(k[g]);
    if (a) { for (let t = caps.start[g]; t < caps.start[g + 1]; t++) f[caps.regions[t]] += a; }
  }
  return f;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * Integers k_g near the values that always satisfy Σ|k_g| ≤ C and dMin ≤ Σ k_g ≤ dMax, and equal
 * plain rounding whenever plain rounding does. Otherwise: every value truncated toward zero (that
 * never uses more flips than the real solution did); then D = Σ k_g moves one unit at a time toward
 * the target, round(Σ values) clamped to the window, each unit going to the value with the largest
 * fractional remainder of the needed sign (lowest index first on ties, at most one per value) while
 * the budget allows. For an exact LP solution (Σ values = D integer in the window, Σ|values| ≤ C)
 * this reaches that D within the budget. For values off by more than the solver's tolerance, last
 * resorts keep the guarantee: before the hand-out, units move toward zero (last unit first) until
 * the budget holds; after it, until the window (which contains 0) does.
 */
export function roundUnderConstraints(inp: RoundingInput): Int32Array {
  const { values, lo, hi, C, dMin, dMax } = inp, G = values.length;
  const plain = Int32Array.from(values, (v, g) => clamp(inp.plain(v), lo[g], hi[g]));
  const caps = inp.caps ?? null;
  const feasible = (k: Int32Array) => {
    let used = 0, D = 0;
    for (const x of k) (used += Math.abs(x), D += x);
    return used <= C && D >= dMin && D <= dMax &&
      (!caps || regionFlips(k, caps).every((f, i) => f <= caps.cap[i]));
  };
  if (feasible(plain)) return plain;
  const k = Int32Array.from(values, (v, g) => clamp(truncSnapped(v), lo[g], hi[g]));
  let used = 0, D = 0, sum = 0;
  for (let g = 0; g < G; g++) (used += Math.abs(k[g]), D += k[g], sum += values[g]);
  const step = (g: number) => {
    const s = Math.sign(k[g]);
    (k[g] -= s, D -= s, used--);
  };
  for (let g = G - 1; g >= 0 && used > C; g--) while (k[g] !== 0 && used > C) step(g);
  // toward zero never adds a region's flips; a hand-out below adds one to each of its unit's regions
  const flips = caps ? regionFlips(k, caps) : null;
  const room = (g: number) => {
    if (!caps) return true;
    for (let t = caps.start[g]; t < caps.start[g + 1]; t++) {
      if (flips![caps.regions[t]] >= caps.cap[caps.regions[t]]) return false;
    }
    return true;
  };
  const target = clamp(roundHalfEven(sum), dMin, dMax), s = Math.sign(target - D);
  const order: number[] = [];
  for (let g = 0; g < G && s !== 0; g++) {
    if ((values[g] - k[g]) * s > SNAP && k[g] + s >= lo[g] && k[g] + s <= hi[g]) order.push(g);
  }
  order.sort((a, b) => Math.abs(values[b] - k[b]) - Math.abs(values[a] - k[a]) || a - b);
  for (const g of order) {
    if (D === target) break;
    const cost = Math.abs(k[g] + s) - Math.abs(k[g]);
    if (used + cost > C || (cost > 0 && !room(g))) continue;
    (k[g] += s, D += s, used += cost);
    if (flips) { for (let t = caps!.start[g]; t < caps!.start[g + 1]; t++) flips[caps!.regions[t]] += cost; }
  }
  // last resort (solver values off by more than their tolerance): toward zero never uses more
  // flips, and reaches a window that contains 0
  for (let g = G - 1; g >= 0; g--) while ((D > dMax && k[g] > 0) || (D < dMin && k[g] < 0)) step(g);
  return k;
}

/** Per-individual rounding of a unit's |x_u|: floor(|x_u|) members at 1, one at the remainder. */
function perIndividual(a: number): number {
  const whole = Math.floor(a + SNAP);
  return whole + (roundHalfEven(Math.max(0, a - whole)) >= 1 ? 1 : 0);
}

/**
 * How many members of each unit flip (k_u ≥ 0), from the solver's real/integer x_u: the plain
 * rounding when it fits the budget, the window and the caps, else `roundUnderConstraints` over the rounding
 * units (disjoint: per region, δ_i to its up or down unit; overlapping: per unit).
 */
export function unitFlipCounts(pr: MitigationProblem, unitDelta: Float64Array): Int32Array {
  const U = pr.unitSign.length, out = new Int32Array(U);
  const common = { C: pr.C, dMin: pr.dMin, dMax: pr.dMax };
  if (pr.overlapping) {
    const lo = Int32Array.from(pr.unitSign, (s, u) => (s < 0 ? -pr.unitCount[u] : 0));
    const hi = Int32Array.from(pr.unitSign, (s, u) => (s > 0 ? pr.unitCount[u] : 0));
    const plain = (v: number) => Math.sign(v) * perIndividual(Math.abs(v));
    const caps = pr.regionCap && { start: pr.unitRegStart, regions: pr.unitRegions, cap: pr.regionCap };
    const k = roundUnderConstraints({ values: unitDelta, lo, hi, plain, ...common, caps });
    for (let u = 0; u < U; u++) out[u] = Math.abs(k[u]);
    return out;
  }
  const G = pr.n.length, net = new Float64Array(G);
  const up = new Int32Array(G).fill(-1), down = new Int32Array(G).fill(-1);
  const lo = new Int32Array(G), hi = new Int32Array(G);
  for (let u = 0; u < U; u++) {
    const g = unitRegion(pr, u);
    net[g] += unitDelta[u];
    // a region's cap bounds its one rounding unit either way
    const c = Math.min(pr.unitCount[u], pr.regionCap?.[g] ?? Infinity);
    if (pr.unitSign[u] > 0) (up[g] = u, hi[g] = c);
    else (down[g] = u, lo[g] = -c);
  }
  const k = roundUnderConstraints({ values: net, lo, hi, plain: roundHalfEven, ...common });
  for (let g = 0; g < G; g++) {
    if (k[g] > 0) out[up[g]] = k[g];
    if (k[g] < 0) out[down[g]] = -k[g];
  }
  return out;
}

/** How the members of a unit that flip are chosen (docs/spatial-fairness.md "From δ to flips"). */
export type FlipOrder = "uncertainty" | "random" | "index";
export const FLIP_ORDERS = ["uncertainty", "random", "index"] as const satisfies readonly FlipOrder[];

/** The choice of members: the order, each scope position's probability ("uncertainty"), the seed. */
export interface FlipChoice {
  order: FlipOrder;
  /** y_pred_prob per scope position; required by "uncertainty", unused otherwise. */
  prob?: ArrayLike<number> | null;
  /** Seed of the random order ("random") and of the tie-breaks ("uncertainty"). */
  seed?: number;
}

const BY_INDEX: FlipChoice = { order: "index" };

/** A seeded random rank of every scope position (0..N-1, a permutation): the tie-break and "random". */
export function seededRanks(N: number, seed: number): Int32Array {
  // Fisher–Yates over 0..N-1 with a stream apart from the audit's worlds (same seed, other constant)
  const rng = new Rng((seed ^ 0x2f1c_9a37) >>> 0), perm = Int32Array.from({ length: N }, (_, j) => j);
  for (let j = N - 1; j > 0; j--) {
    const t = rng.int(j + 1), v = perm[j];
    (perm[j] = perm[t], perm[t] = v);
  }
  const rank = new Int32Array(N);
  perm.forEach((j, r) => (rank[j] = r));
  return rank;
}

/**
 * The k_u members of every unit that flip (scope positions, ascending), chosen by `choice` among the
 * unit's members: the counts decide how many, the order only whom.
 */
export function chooseMembers(
  pr: MitigationProblem,
  counts: Int32Array,
  choice: FlipChoice = BY_INDEX,
): Int32Array {
  const { order } = choice, prob = choice.prob ?? null;
  if (order === "uncertainty" && (!prob || prob.length !== pr.N)) {
    throw new RangeError("flip order 'uncertainty' needs a probability for every individual in scope");
  }
  const rank = order === "index" ? null : seededRanks(pr.N, choice.seed ?? 0);
  const out: number[] = [];
  for (let u = 0; u < counts.length; u++) {
    const a = pr.unitMemStart[u], b = pr.unitMemStart[u + 1], k = counts[u];
    if (k <= 0) continue;
    if (k >= b - a || order === "index") {
      for (let t = a; t < a + Math.min(k, b - a); t++) out.push(pr.unitMembers[t]);
      continue;
    }
    const m = Array.from(pr.unitMembers.subarray(a, b));
    if (order === "random") m.sort((x, y) => rank![x] - rank![y]);
    else {
      // flips to 1 (a unit of 0s): highest probability first; to 0: lowest first
      const s = pr.unitSign[u];
      m.sort((x, y) => s * (prob![y] - prob![x]) || rank![x] - rank![y]);
    }
    for (let t = 0; t < k; t++) out.push(m[t]);
  }
  return Int32Array.from(out).sort();
}

/** Which scope positions flip (ascending): k_u members of every unit (unitFlipCounts), chosen by `choice`. */
export function flipsFromUnits(
  pr: MitigationProblem,
  unitDelta: Float64Array,
  choice: FlipChoice = BY_INDEX,
): Int32Array {
  return chooseMembers(pr, unitFlipCounts(pr, unitDelta), choice);
}

/**
 * Flips per region from the units' counts: to 1 and to 0 (a unit's flips count in every region of
 * its signature; individuals in no region count in none).
 */
export function regionFlipCounts(
  pr: MitigationProblem,
  counts: Int32Array,
): { toPositive: Int32Array; toNegative: Int32Array } {
  const R = pr.n.length, toPositive = new Int32Array(R), toNegative = new Int32Array(R);
  for (let u = 0; u < counts.length; u++) {
    const into = pr.unitSign[u] > 0 ? toPositive : toNegative;
    for (let t = pr.unitRegStart[u]; t < pr.unitRegStart[u + 1]; t++) into[pr.unitRegions[t]] += counts[u];
  }
  return { toPositive, toNegative };
}

/** δ of every region: the sum of its units' flips (real for approx, integer for exact). */
export function regionsDelta(pr: MitigationProblem, unitDelta: Float64Array): Float64Array {
  const out = new Float64Array(pr.n.length);
  for (let u = 0; u < unitDelta.length; u++) {
    for (let k = pr.unitRegStart[u]; k < pr.unitRegStart[u + 1]; k++) out[pr.unitRegions[k]] += unitDelta[u];
  }
  return out;
}
