/**
 * Everything a Monte Carlo kernel needs, as flat typed arrays built once per audit: membership
 * signatures, the regions a world can score on, the x·ln x table, and the sampler's constants. A plan
 * is plain data (structured-clone friendly), so one plan can be handed to several workers, each running
 * its own range of worlds.
 */
import { type AliasTables, binomialTables } from "./binomial.ts";
import { type NumpyBernoulli, numpyBernoulli } from "./mt19937.ts";
import { type Signatures, signatures } from "./signatures.ts";
import { xlogxTable } from "./statistic.ts";
import type { Regions, RngMode } from "./types.ts";

/** Worlds handled together in one pass over the incidence list (one count per world in adjacent lanes). */
export const LANES = 16;

export interface AuditPlan {
  rng: RngMode;
  /** Individuals in scope, and positives among them. */
  n: number;
  positives: number;
  /** Positives of each region (by region index) in the observed labels. */
  observed: Int32Array;
  /** Regions a world can score on (0 < n < N), as region indices; the kernels number them 0..K-1. */
  scored: Int32Array;
  /** Per scored region: its size n, and t[n] + t[N - n]. */
  scoredN: Int32Array;
  scoredC: Float64Array;
  /**
   * Individuals per signature; signature of each individual (the numpy kernel reads it; a mitigation's
   * problem takes the signatures from the plan: planSignatures).
   */
  sigCount: Int32Array;
  sigOf: Int32Array;
  /** Signature s lies in scored regions sigRegs[sigRegStart[s] .. sigRegStart[s+1]). */
  sigRegStart: Int32Array;
  sigRegs: Int32Array;
  /** x·ln x for x = 0..n. */
  xlx: Float64Array;
  /** Binomial(count, P/N) samplers (fast mode; null in numpy mode or when P is 0 or N). */
  tables: AliasTables | null;
  /** numpy's Bernoulli(P/N) constants (numpy mode; null in fast mode or when P is 0 or N). */
  bernoulli: NumpyBernoulli | null;
}

/** Builds the plan of an audit of `labels` (y of the individuals in scope) over `regions`. */
export function planAudit(labels: Uint8Array, regions: Regions, rng: RngMode): AuditPlan {
  const n = labels.length;
  const scoredList: number[] = [];
  regions.members.forEach((m, r) => {
    if (m.length > 0 && m.length < n) scoredList.push(r);
  });
  const scored = Int32Array.from(scoredList);
  const xlx = xlogxTable(n);
  const scoredN = new Int32Array(scored.length), scoredC = new Float64Array(scored.length);
  for (let k = 0; k < scored.length; k++) {
    const size = regions.members[scored[k]].length;
    scoredN[k] = size;
    scoredC[k] = xlx[size] + xlx[n - size];
  }
  const sig = signatures(n, Array.from(scored, (r) => regions.members[r]));
  const structure = {
    rng,
    n,
    scored,
    scoredN,
    scoredC,
    sigCount: sig.count,
    sigOf: sig.of,
    sigRegStart: sig.regStart,
    sigRegs: sig.regs,
    xlx,
  };
  return { ...structure, ...labelsPart(labels, regions, structure) };
}

/**
 * The plan of other labels over the scope and regions of `base` (a mitigation's predictions): the
 * signatures, most of a plan's cost, depend on the regions alone, so only the counts and samplers change.
 */
export function planForLabels(base: AuditPlan, labels: Uint8Array, regions: Regions): AuditPlan {
  if (labels.length !== base.n) throw new RangeError(`${labels.length} labels for a plan of ${base.n}`);
  return { ...base, ...labelsPart(labels, regions, base) };
}

/** What a plan takes from the labels: positives, each region's observed positives, the samplers. */
function labelsPart(
  labels: Uint8Array,
  regions: Regions,
  s: Pick<AuditPlan, "rng" | "n" | "sigCount">,
): Pick<AuditPlan, "positives" | "observed" | "tables" | "bernoulli"> {
  let positives = 0;
  for (let i = 0; i < s.n; i++) positives += labels[i];
  const observed = new Int32Array(regions.members.length);
  regions.members.forEach((m, r) => {
    let p = 0;
    for (let j = 0; j < m.length; j++) p += labels[m[j]];
    observed[r] = p;
  });
  const degenerate = positives === 0 || positives === s.n;
  const p = positives / s.n;
  return {
    positives,
    observed,
    tables: s.rng === "fast" && !degenerate ? binomialTables(s.sigCount, p) : null,
    bernoulli: s.rng === "numpy" && !degenerate ? numpyBernoulli(p) : null,
  };
}

/**
 * The signatures of a plan over every region of `regions` (the plan's are over its scored regions): a
 * region of everyone lies in every signature and an empty one in none, so the classes are the same and
 * only those regions join each list. A mitigation's problem takes them instead of refining again.
 */
export function planSignatures(plan: AuditPlan, regions: Regions): Signatures {
  const full: number[] = [];
  regions.members.forEach((m, r) => m.length === plan.n && m.length > 0 && full.push(r));
  const nSig = plan.sigCount.length, { sigRegStart: start, sigRegs: regs, scored } = plan;
  const regStart = new Int32Array(nSig + 1);
  for (let s = 0; s < nSig; s++) regStart[s + 1] = regStart[s] + start[s + 1] - start[s] + full.length;
  const out = new Int32Array(regStart[nSig]);
  for (let s = 0, at = 0; s < nSig; s++) {
    // merge the signature's scored regions (ascending) with the full ones (ascending)
    let k = start[s], f = 0;
    while (k < start[s + 1] || f < full.length) {
      const next = k < start[s + 1] ? scored[regs[k]] : Infinity;
      if (f < full.length && full[f] < next) out[at++] = full[f++];
      else (out[at++] = next, k++);
    }
  }
  return { count: plan.sigCount, of: plan.sigOf, regStart, regs: out };
}
