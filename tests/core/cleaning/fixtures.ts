/** Seeded data with known structure for the cleaning tests: what was removed or planted is returned. */
import { Rng } from "../../../core/random.ts";

/**
 * n rows of d columns driven by 3 latent factors plus noise of sd `noise`, so each column is predictable
 * from the rest; the loadings come along so tests can compute the best achievable prediction error.
 */
export function factorTable(n: number, d: number, seed: number, noise = 0.2) {
  const rng = new Rng(seed);
  const load = Array.from({ length: d }, () => [rng.normal(), rng.normal(), rng.normal()]);
  const cols = Array.from({ length: d }, () => new Float64Array(n));
  for (let i = 0; i < n; i++) {
    const z = [rng.normal(), rng.normal(), rng.normal()];
    for (let j = 0; j < d; j++) {
      cols[j][i] = load[j][0] * z[0] + load[j][1] * z[1] + load[j][2] * z[2] + noise * rng.normal();
    }
  }
  return { cols, load, noise };
}

/** Sets a fraction of cells to NaN; returns the damaged copy and the (column, row, true value) removed. */
export function removeCells(cols: Float64Array[], rate: number, seed: number) {
  const rng = new Rng(seed);
  const damaged = cols.map((c) => c.slice());
  const removed: { j: number; i: number; truth: number }[] = [];
  damaged.forEach((c, j) => {
    for (let i = 0; i < c.length; i++) {
      if (rng.next() < rate) {
        removed.push({ j, i, truth: c[i] });
        c[i] = NaN;
      }
    }
  });
  return { damaged, removed };
}

/**
 * Moves `count` rows ±`shift` standard deviations along every column (a random sign each): anomalies
 * far from the bulk in every view, which each detector family is built to find. Returns their indices.
 */
export function plantOutliers(cols: Float64Array[], count: number, shift: number, seed: number): Set<number> {
  const rng = new Rng(seed);
  const n = cols[0].length;
  const rows = new Set<number>();
  while (rows.size < count) rows.add(rng.int(n));
  const sds = cols.map((c) => Math.sqrt(c.reduce((s, v) => s + v * v, 0) / n));
  for (const i of rows) cols.forEach((c, j) => (c[i] += (rng.next() < 0.5 ? -1 : 1) * shift * sds[j]));
  return rows;
}

/** Recall and precision of labels against the planted rows. */
export function score(labels: Uint8Array, planted: Set<number>) {
  let tp = 0, flagged = 0;
  labels.forEach((l, i) => {
    if (!l) return;
    flagged++;
    if (planted.has(i)) tp++;
  });
  return { recall: tp / planted.size, precision: flagged ? tp / flagged : 0, flagged };
}

/** Root mean squared error of filled values against the truth of removed cells. */
export function rmse(
  removed: { j: number; i: number; truth: number }[],
  value: (j: number, i: number) => number,
) {
  return Math.sqrt(removed.reduce((s, r) => s + (value(r.j, r.i) - r.truth) ** 2, 0) / removed.length);
}

/** Hourly series: a daily cycle of amplitude 6, slow trend, noise of sd `noise`. */
export function dailySeries(hours: number, seed: number, noise = 0.5) {
  const rng = new Rng(seed);
  const start = Date.UTC(2026, 0, 1);
  const times = Float64Array.from({ length: hours }, (_, h) => start + h * 3600_000);
  const values = Float64Array.from(
    { length: hours },
    (_, h) => 12 + 6 * Math.sin((2 * Math.PI * (h % 24 - 9)) / 24) + 0.002 * h + noise * rng.normal(),
  );
  return { times, values };
}
