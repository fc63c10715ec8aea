/**
 * The Monte Carlo kernel in plain TypeScript: the reference implementation that the WebAssembly kernel
 * (wasm/audit.ts) mirrors operation for operation, kept for tests that compare the two and for the
 * benchmark ratio. Each of LANES worlds fills its own row of X (counts per signature), then one pass
 * over the (signature → region) incidence list adds the LANES worlds' counts together.
 */
import { type AuditPlan, LANES } from "../../core/spatial/plan.ts";
import { MT19937, numpyLabel } from "../../core/spatial/mt19937.ts";
import {
  type AuditInput,
  type AuditOutput,
  runAudit as runAuditWith,
  simulateWorlds as simulateWasm,
} from "../../core/spatial/audit.ts";

/** 2^-53: multiplying by it is exact, so it gives the same double as numpy's division by 2^53. */
const TWO_M53 = 1.1102230246251565e-16;

/** sfc32 state of world w: a = 0, b = seed, c = w, d = 1, then 12 rounds (the generator's own seeding). */
export function worldState(seed: number, w: number): Uint32Array {
  const s = Uint32Array.of(0, seed >>> 0, w >>> 0, 1);
  for (let i = 0; i < 12; i++) sfc32(s);
  return s;
}

/** One sfc32 output; the state is updated in place. */
export function sfc32(s: Uint32Array): number {
  const a = s[0], b = s[1], c = s[2], d = s[3];
  const t = (a + b + d) >>> 0;
  s[3] = d + 1;
  s[0] = b ^ (b >>> 9);
  s[1] = c + (c << 3);
  s[2] = ((c << 21) | (c >>> 11)) + t;
  return t;
}

/** Counts of positives per signature of world w into lane l of X (fast mode: one Binomial per signature). */
function fillFast(plan: AuditPlan, seed: number, w: number, X: Int32Array, l: number): void {
  const tb = plan.tables!;
  const { tableOf, start, size, lo, prob, alias } = tb;
  const st = worldState(seed, w);
  const nSig = plan.sigCount.length;
  for (let s = 0; s < nSig; s++) {
    const x = sfc32(st) >>> 5, y = sfc32(st) >>> 6;
    const u = (x * 67108864 + y) * TWO_M53;
    const t = tableOf[s], m = size[t];
    const v = u * m;
    let i = Math.floor(v);
    if (i >= m) i = m - 1;
    const at = start[t] + i;
    X[l * nSig + s] = lo[t] + (v - i < prob[at] ? i : alias[at]);
  }
}

/** Counts of positives per signature of world w (numpy mode: MT19937(seed + w), one label per individual). */
function fillNumpy(plan: AuditPlan, seed: number, w: number, X: Int32Array, l: number): void {
  const mt = new MT19937(seed + w);
  const b = plan.bernoulli!, of = plan.sigOf, row = l * plan.sigCount.length;
  for (let i = 0; i < plan.n; i++) {
    if (numpyLabel(mt, b)) X[row + of[i]]++;
  }
}

/** World maxima of s for worlds w0 .. w1-1 (each world depends only on seed and w, not on the range). */
export function worldsTs(plan: AuditPlan, seed: number, w0: number, w1: number): Float64Array {
  const out = new Float64Array(w1 - w0);
  const N = plan.n;
  if (plan.positives === 0 || plan.positives === N) return out;
  const nSig = plan.sigCount.length, K = plan.scored.length;
  const { sigRegStart, sigRegs, scoredN, scoredC, xlx } = plan;
  const X = new Int32Array(nSig * LANES), acc = new Int32Array(K * LANES);
  const tot = new Int32Array(LANES), x = new Int32Array(LANES);
  for (let wb = w0; wb < w1; wb += LANES) {
    const nb = Math.min(LANES, w1 - wb);
    X.fill(0);
    for (let l = 0; l < nb; l++) {
      if (plan.rng === "numpy") fillNumpy(plan, seed, wb + l, X, l);
      else fillFast(plan, seed, wb + l, X, l);
    }
    acc.fill(0);
    tot.fill(0);
    for (let s = 0; s < nSig; s++) {
      for (let l = 0; l < LANES; l++) x[l] = X[l * nSig + s];
      for (let l = 0; l < LANES; l++) tot[l] += x[l];
      for (let j = sigRegStart[s]; j < sigRegStart[s + 1]; j++) {
        const rb = sigRegs[j] * LANES;
        for (let l = 0; l < LANES; l++) acc[rb + l] += x[l];
      }
    }
    for (let l = 0; l < nb; l++) {
      const P = tot[l];
      if (P === 0 || P === N) continue;
      const l0 = xlx[P] + xlx[N - P] - xlx[N];
      let best = 0;
      for (let k = 0; k < K; k++) {
        const p = acc[k * LANES + l], n = scoredN[k], q = P - p, m = N - n;
        const S = xlx[p] + xlx[n - p] + (xlx[q] + xlx[m - q]) - scoredC[k] - l0;
        if (S > best) best = S;
      }
      out[wb - w0 + l] = best / -l0;
    }
  }
  return out;
}

/** Which Monte Carlo kernel a test runs: the service's WebAssembly one or this file's TypeScript one. */
export type Kernel = "wasm" | "ts";

/** World maxima for worlds w0 .. w1-1 by the chosen kernel (both give identical maxima). */
export function simulateWorlds(
  plan: AuditPlan,
  seed: number,
  w0: number,
  w1: number,
  kernel: Kernel = "wasm",
) {
  return kernel === "ts" ? worldsTs(plan, seed, w0, w1) : simulateWasm(plan, seed, w0, w1);
}

/** The whole audit in one thread with the chosen kernel. */
export function runAudit(input: AuditInput & { kernel?: Kernel }): AuditOutput {
  return runAuditWith(input, input.kernel === "ts" ? worldsTs : simulateWasm);
}
