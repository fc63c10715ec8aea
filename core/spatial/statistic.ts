/**
 * The Bernoulli likelihood-ratio scan statistic of docs/spatial-fairness.md, with the zero cases the
 * reference divided by zero on defined as 0. Two forms of one quantity:
 * - `logLik`/`rawStat`/`normStat`: the documented formulas with logarithms, for reading and for tests;
 * - `xlogxTable` + `tableRawStat`: the same S from a table of x·ln x, which the Monte Carlo kernels
 *   (TypeScript and WebAssembly, operation for operation) and the audit's observed values share, so a
 *   world that repeats the observed configuration gives bit-identical numbers and ties compare as ties.
 */

/** L(k, m) = k ln(k/m) + (m-k) ln(1 - k/m), with 0·ln 0 = 0 and L = 0 when m = 0. */
export function logLik(k: number, m: number): number {
  if (m === 0) return 0;
  const a = k === 0 ? 0 : k * Math.log(k / m);
  const b = k === m ? 0 : (m - k) * Math.log(1 - k / m);
  return a + b;
}

/** Raw statistic S = l1 - l0 ≥ 0 of a region with n individuals, p of them positive (0 when n is 0 or N). */
export function rawStat(p: number, n: number, P: number, N: number): number {
  if (n === 0 || n === N) return 0;
  const l0 = logLik(P, N);
  const l1 = logLik(p, n) + logLik(P - p, N - n);
  return Math.max(0, l1 - l0);
}

/** Normalised statistic s = (l1 - l0)/|l0| in [0, 1]; 0 when l0 = 0 (P = 0 or P = N) or n is 0 or N. */
export function normStat(p: number, n: number, P: number, N: number): number {
  const l0 = logLik(P, N);
  if (l0 === 0 || n === 0 || n === N) return 0;
  return rawStat(p, n, P, N) / -l0;
}

/** x·ln x for x = 0..n (0·ln 0 = 0): L(k, m) = t[k] + t[m-k] - t[m] without a logarithm per call. */
export function xlogxTable(n: number): Float64Array {
  const t = new Float64Array(n + 1);
  for (let x = 2; x <= n; x++) t[x] = x * Math.log(x);
  return t;
}

/** l0 = L(P, N) from the table, in the kernels' operation order. */
export function tableL0(t: Float64Array, P: number, N: number): number {
  return t[P] + t[N - P] - t[N];
}

/**
 * S = l1 - l0 from the table, in exactly the kernels' operation order (wasm/audit.ts mirrors it):
 * l1 = ((t[p] + t[n-p]) + (t[q] + t[m-q])) - (t[n] + t[m]) with q = P - p, m = N - n.
 * Not clamped: the kernels take the maximum over regions and clamp once.
 */
export function tableRawStat(
  t: Float64Array,
  p: number,
  n: number,
  P: number,
  N: number,
  l0: number,
): number {
  const q = P - p, m = N - n;
  return t[p] + t[n - p] + (t[q] + t[m - q]) - (t[n] + t[m]) - l0;
}
