/**
 * Synthetic instances of the mitigation benchmarks (issue 7 item 7), seeded: disjoint regions with
 * region rates spread around a global rate (spatial bias to remove), overlapping regions as squares
 * of three grid scales over points in the unit square, and probability scores for threshold mitigation.
 */
import { Rng } from "../core/random.ts";
import type { Regions } from "../core/spatial/types.ts";

/**
 * Labels of N individuals in R disjoint regions (each individual in a uniformly drawn region, so sizes
 * vary like counts do), region rates ~ N(rate, spread²) clipped to [0.05, 0.95].
 */
export function disjointInstance(N: number, R: number, rate: number, spread: number, seed = 1) {
  const rng = new Rng(seed);
  const rates = Float64Array.from(
    { length: R },
    () => Math.min(0.95, Math.max(0.05, rate + spread * rng.normal())),
  );
  const labels = new Uint8Array(N), region = new Int32Array(N), size = new Int32Array(R);
  for (let j = 0; j < N; j++) {
    const r = region[j] = rng.int(R);
    (labels[j] = rng.next() < rates[r] ? 1 : 0, size[r]++);
  }
  const members = Array.from(size, (s) => new Int32Array(s)), fill = new Int32Array(R);
  for (let j = 0; j < N; j++) members[region[j]][fill[region[j]]++] = j;
  const regions: Regions = {
    source: "region_ids",
    ids: [...Array(R).keys()],
    members,
    polygons: null,
    unassigned: 0,
  };
  return { labels, regions };
}

/** Threshold-mitigation data: N scores in R disjoint clusters with cluster-level shifts; y_pred = prob > t0. */
export function scoredInstance(N: number, R: number, t0 = 0.5, seed = 3) {
  const { regions } = disjointInstance(N, R, 0.5, 0, seed);
  const rng = new Rng(seed + 1), prob = new Float64Array(N), yTrue = new Uint8Array(N);
  regions.members.forEach((m) => {
    const shift = 0.1 * rng.normal();
    for (const j of m) {
      prob[j] = Math.min(1, Math.max(0, rng.next() * 0.8 + 0.1 + shift));
      yTrue[j] = rng.next() < prob[j] - shift ? 1 : 0;
    }
  });
  const yPred = Uint8Array.from(prob, (p) => (p > t0 ? 1 : 0));
  return { prob, yPred, yTrue, regions };
}

/**
 * N points uniform in the unit square, regions = the cells of grids of g×g for g in `grids` (so every
 * point sits in one cell per grid: overlapping regions), label rate rising from west to east.
 */
export function overlappingInstance(N: number, grids: number[], seed = 2) {
  const rng = new Rng(seed);
  const x = Float64Array.from({ length: N }, () => rng.next()),
    y = Float64Array.from({ length: N }, () => rng.next());
  const labels = Uint8Array.from(x, (v, j) => (rng.next() < 0.25 + 0.2 * v + 0.1 * y[j] ? 1 : 0));
  const members: Int32Array[] = [];
  for (const g of grids) {
    const cells: number[][] = Array.from({ length: g * g }, () => []);
    for (let j = 0; j < N; j++) {
      cells[Math.min(g - 1, Math.floor(y[j] * g)) * g + Math.min(g - 1, Math.floor(x[j] * g))].push(j);
    }
    for (const c of cells) members.push(Int32Array.from(c));
  }
  const regions: Regions = {
    source: "region_ids",
    ids: members.map((_, r) => r),
    members,
    polygons: null,
    unassigned: 0,
  };
  return { labels, regions, x, y };
}
