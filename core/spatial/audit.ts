/**
 * The spatial bias audit of docs/spatial-fairness.md: the observed statistic of every region, W
 * Monte Carlo worlds under the null (same locations, labels i.i.d. Bernoulli(P/N)), the threshold T from
 * the sorted world maxima, significance, p-values and the SBI score.
 *
 * In one thread: `runAudit(input)`. Across workers: `planAudit` once, `simulateWorlds` on disjoint world
 * ranges (a world depends only on seed and its number, so any split gives the same answer), then
 * `summarizeAudit` on the concatenated maxima (services/spatial/on_pool.ts does this over the pool).
 */
import { worldsWasm } from "./audit_wasm.ts";
import { type AuditPlan, planAudit, planForLabels } from "./plan.ts";
import { tableL0, tableRawStat } from "./statistic.ts";
import type { AuditResult, Regions, RegionStat, RngMode } from "./types.ts";

export { planAudit, planForLabels };
export type { AuditPlan };

/** The Monte Carlo worlds of a plan: world maxima for worlds w0 .. w1-1. */
export type WorldsFn = (plan: AuditPlan, seed: number, w0: number, w1: number) => Float64Array;

export interface AuditInput {
  /** y of the individuals in scope, in scope order (0/1). */
  labels: Uint8Array;
  /** Regions over the same scope positions (buildRegions). */
  regions: Regions;
  nWorlds: number;
  signifLevel: number;
  /** 0 .. 2^32-1; in numpy mode seed + nWorlds - 1 must stay below 2^32, as numpy requires. */
  seed: number;
  rng: RngMode;
}

export interface AuditOutput extends AuditResult {
  rng: RngMode;
  seed: number;
  n_worlds: number;
  signif_level: number;
  /** M_w of every world w, in world order (what T and the p-values are computed from). */
  world_max: Float64Array;
  timing_ms: { plan: number; worlds: number; summary: number };
}

/**
 * Asserts parameters the audit can honour. The request schema (routes/spatial/spatial.schemas.ts) checks
 * each of them and names its field: one that reaches the audit broken is a caller's bug (a 500).
 */
export function assertAuditParams(nWorlds: number, signifLevel: number, seed: number, rng: RngMode): void {
  if (!Number.isInteger(nWorlds) || nWorlds < 1) {
    throw new RangeError(`n_worlds ${nWorlds}: a positive integer`);
  }
  if (!(signifLevel > 0 && signifLevel < 1)) {
    throw new RangeError(`signif_level ${signifLevel}: strictly between 0 and 1`);
  }
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) {
    throw new RangeError(`seed ${seed}: an integer in 0 .. ${MAX_SEED}`);
  }
  const numpy = numpySeedProblem(rng, seed, nWorlds);
  if (numpy) throw new RangeError(numpy);
}

/** The largest seed a world may get: 32 bits, numpy's limit too. */
export const MAX_SEED = 0xffffffff;

/**
 * Why a seed cannot serve, or null: rng "numpy" seeds world w with seed + w, which numpy allows up to
 * MAX_SEED. The one statement of the rule, for the request schema and for the audit itself.
 */
export function numpySeedProblem(rng: RngMode, seed: number, nWorlds: number): string | null {
  if (rng !== "numpy" || seed + nWorlds - 1 <= MAX_SEED) return null;
  return `rng "numpy" seeds world w with seed + w, which numpy allows up to ${MAX_SEED}: ` +
    `use a seed of at most ${MAX_SEED - nWorlds + 1} for ${nWorlds} worlds`;
}

/** World maxima for worlds w0 .. w1-1 of a plan, by the WebAssembly kernel. */
export const simulateWorlds: WorldsFn = worldsWasm;

/** 0-based position of T in the maxima sorted descending: floor(α·W), as the reference computed it. */
export function thresholdIndex(signifLevel: number, nWorlds: number): number {
  return Math.min(nWorlds - 1, Math.floor(signifLevel * nWorlds));
}

/** T = M_sorted_desc[floor(α·W)]. */
export function threshold(worldMax: Float64Array, signifLevel: number): number {
  const desc = Float64Array.from(worldMax).sort().reverse();
  return desc[thresholdIndex(signifLevel, worldMax.length)];
}

/** Observed s and S of every region, from the same x·ln x table as the worlds (ties compare exactly). */
export function observedStats(plan: AuditPlan, members: Int32Array[]): { s: Float64Array; S: Float64Array } {
  const R = members.length, N = plan.n, P = plan.positives;
  const s = new Float64Array(R), S = new Float64Array(R);
  if (P === 0 || P === N) return { s, S };
  const l0 = tableL0(plan.xlx, P, N);
  for (let r = 0; r < R; r++) {
    const n = members[r].length;
    if (n === 0 || n === N) continue;
    const raw = tableRawStat(plan.xlx, plan.observed[r], n, P, N, l0);
    S[r] = raw > 0 ? raw : 0;
    s[r] = S[r] / -l0;
  }
  return { s, S };
}

/** The audit's reply from a plan and the maxima of all W worlds (in world order). */
export function summarizeAudit(
  plan: AuditPlan,
  regions: Regions,
  worldMax: Float64Array,
  params: { signifLevel: number; seed: number; rng: RngMode },
): Omit<AuditOutput, "timing_ms"> {
  const W = worldMax.length;
  const asc = Float64Array.from(worldMax).sort();
  const T = asc[W - 1 - thresholdIndex(params.signifLevel, W)];
  const { s, S } = observedStats(plan, regions.members);
  const stats: RegionStat[] = [];
  let sum = 0, nonEmpty = 0, signif = 0;
  for (let r = 0; r < regions.members.length; r++) {
    const n = regions.members[r].length, p = plan.observed[r];
    if (n > 0) (sum += s[r], nonEmpty++);
    // A region that shows no difference at all (s = 0) is never significant, which matters only when
    // every world maximum is 0 too (P = 0 or P = N): then T = 0 and "s ≥ T" alone would flag them all.
    const isSignif = s[r] >= T && s[r] > 0;
    if (isSignif) signif++;
    stats.push({
      idx: r,
      region_id: regions.ids[r],
      n,
      p,
      rate: n > 0 ? p / n : null,
      raw_stat: S[r],
      stat: s[r],
      p_value: (1 + (W - lowerBound(asc, s[r]))) / (W + 1),
      is_signif: isSignif,
    });
  }
  return {
    sbi_score: nonEmpty > 0 ? sum / nonEmpty : 0,
    signif_thresh: T,
    total_signif_regions: signif,
    stats,
    n_individuals: plan.n,
    n_positives: plan.positives,
    rng: params.rng,
    seed: params.seed,
    n_worlds: W,
    signif_level: params.signifLevel,
    world_max: worldMax,
  };
}

/** First position in ascending `a` whose value is ≥ x. */
function lowerBound(a: Float64Array, x: number): number {
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The whole audit in the calling thread (inside one worker task): plan, all worlds, summary. */
export function runAudit(input: AuditInput, worlds: WorldsFn = simulateWorlds): AuditOutput {
  const { labels, regions, nWorlds, signifLevel, seed, rng } = input;
  assertAuditParams(nWorlds, signifLevel, seed, rng);
  const t0 = performance.now();
  const plan = planAudit(labels, regions, rng);
  const t1 = performance.now();
  const worldMax = worlds(plan, seed, 0, nWorlds);
  const t2 = performance.now();
  const out = summarizeAudit(plan, regions, worldMax, { signifLevel, seed, rng });
  const t3 = performance.now();
  return { ...out, timing_ms: { plan: t1 - t0, worlds: t2 - t1, summary: t3 - t2 } };
}
