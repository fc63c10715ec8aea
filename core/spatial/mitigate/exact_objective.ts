/**
 * PROMIS-Exact's objective over overlapping regions, term by term: Σ_i (l1_i - l0) at positives x_i and
 * newP = P', each raw statistic clamped at 0 (regions with n = 0 or n = N have none). Shared by the search
 * (exact_overlapping.ts), its bound over newP (exact_rate_bound.ts) and the local search (exact_local.ts).
 */
import type { MitigationProblem } from "./problem.ts";

/** Region i's term at x positives and newP = Pp (t: statistic.ts xlogxTable(N)); Infinity if x cannot be. */
export function regionTerm(pr: MitigationProblem, t: Float64Array, i: number, x: number, Pp: number): number {
  const N = pr.N, n = pr.n[i], m = N - n, q = Pp - x;
  if (n === 0 || n === N) return 0;
  if (x < 0 || x > n || q < 0 || q > m) return Infinity;
  const s = t[x] + t[n - x] + (t[q] + t[m - q]) - (t[n] + t[m]) - (t[Pp] + t[N - Pp] - t[N]);
  return s > 0 ? s : 0;
}

/** Σ_i of the terms of regions with positives x at P'. */
export function exactObjective(pr: MitigationProblem, t: Float64Array, x: Int32Array, Pp: number): number {
  let sum = 0;
  for (let i = 0; i < x.length; i++) sum += regionTerm(pr, t, i, x[i], Pp);
  return sum;
}

/** Every region's positives after integer flips k_u (k_u ≥ 0 members of unit u flip), and D = newP - P. */
export function positivesAfter(
  pr: MitigationProblem,
  k: Int32Array,
): { x: Int32Array; D: number; used: number } {
  const x = pr.p.slice();
  let D = 0, used = 0;
  for (let u = 0; u < k.length; u++) {
    const d = pr.unitSign[u] * k[u];
    (D += d, used += k[u]);
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) x[pr.unitRegions[r]] += d;
  }
  return { x, D, used };
}

/** Flips each region may still take before any is decided: its cap, or a number no count reaches. */
export function capsLeft(pr: MitigationProblem): Int32Array {
  return pr.regionCap ? pr.regionCap.slice() : new Int32Array(pr.n.length).fill(2 ** 30);
}

/** True when integer flips k keep every region's cap (max_flips_per_region), or there are none. */
export function capsKept(pr: MitigationProblem, k: Int32Array): boolean {
  const cap = pr.regionCap;
  if (!cap) return true;
  const f = new Int32Array(cap.length);
  for (let u = 0; u < k.length; u++) {
    if (k[u]) {
      for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) f[pr.unitRegions[r]] += k[u];
    }
  }
  return f.every((v, i) => v <= cap[i]);
}
