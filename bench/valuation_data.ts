/**
 * Datasets of the valuation benchmarks and reference runs: the feature-importance benchmark table
 * (binary target, 20 features: 12 continuous, 4 small integers, 4 noise columns rounded to 0.01) and
 * the correlation benchmark columns (continuous, integer-valued, two-decimal, 0/1; some with gaps).
 */
import { Rng } from "../core/random.ts";

/** n rows × 20 features and a label from a noisy logit with an interaction; column-major. */
export function importanceTable(
  n: number,
  seed = 7,
): { names: string[]; columns: Float64Array[]; y: Int32Array } {
  const p = 20;
  const rng = new Rng(seed);
  const columns = Array.from({ length: p }, () => new Float64Array(n));
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) columns[j][i] = rng.normal();
    for (let j = 12; j < 16; j++) columns[j][i] = Math.round(columns[j][i] * 2);
    for (let j = 16; j < 20; j++) columns[j][i] = Math.round(columns[j][i] * 100) / 100;
    const c = (j: number) => columns[j][i];
    const logit = 1.2 * c(0) - 0.9 * c(1) + 0.7 * c(2) + 0.5 * c(3) - 0.4 * c(4) + 0.8 * c(5) * c(6) +
      0.3 * c(12);
    y[i] = logit + rng.normal() * 0.8 > 0 ? 1 : 0;
  }
  return { names: columns.map((_, j) => `x${j}`), columns, y };
}

/**
 * k columns of n rows sharing one latent factor (so coefficients are not all near 0): column j is
 * continuous (j % 4 = 0 or 3), integer-valued with ~10 levels (j % 4 = 1), or rounded to 0.01
 * (j % 4 = 2); every fifth column (j % 5 = 3) has 2 % gaps.
 */
export function correlationColumns(n: number, k: number, seed = 1): Float64Array[] {
  const rng = new Rng(seed);
  const base = Float64Array.from({ length: n }, () => rng.normal());
  return Array.from({ length: k }, (_, j) => {
    const col = new Float64Array(n);
    for (let r = 0; r < n; r++) {
      let v = 0.3 * base[r] + rng.normal();
      if (j % 4 === 1) v = Math.round(v * 2);
      if (j % 4 === 2) v = Math.round(v * 100) / 100;
      if (j % 5 === 3 && rng.next() < 0.02) v = NaN;
      col[r] = v;
    }
    return col;
  });
}
