/**
 * Synthetic audit inputs of the sizes in BENCHMARKS.md, seeded: (a) N individuals in a unit square with
 * R overlapping axis-aligned squares as region_ids; (b) N individuals in C Gaussian clusters, one region
 * per cluster. Labels are Bernoulli(base) with a planted higher rate in a few regions, so audits find
 * something.
 */
import { Rng } from "../core/random.ts";
import type { Individuals } from "../core/spatial/types.ts";
import { flattenRegionIds } from "../core/spatial/regions.ts";

function individuals(lon: Float64Array, lat: Float64Array, yPred: Uint8Array, regionIds: number[][] | null) {
  const n = lon.length;
  const ind: Individuals = {
    n,
    docIds: Array.from({ length: n }, (_, i) => `d${i}`),
    yPred,
    yTrue: null,
    lat,
    lon,
    regionIds: regionIds && flattenRegionIds(regionIds),
    prob: null,
  };
  return ind;
}

/** (a): N points uniform in [0,1]², R squares of side `side` at uniform centres; planted squares 0..4. */
export function overlappingSquares(n = 206_418, R = 3_000, side = 0.05, seed = 1): Individuals {
  const rng = new Rng(seed);
  const lon = Float64Array.from({ length: n }, () => rng.next());
  const lat = Float64Array.from({ length: n }, () => rng.next());
  const sq = Array.from({ length: R }, () => [rng.next() * (1 - side), rng.next() * (1 - side)]);
  // Bucket squares by a grid of cells of size `side`, so each point tests only nearby squares.
  const G = Math.ceil(1 / side), cells: number[][] = Array.from({ length: G * G }, () => []);
  sq.forEach(([x, y], r) => cells[Math.floor(y / side) * G + Math.floor(x / side)].push(r));
  const regionIds: number[][] = [];
  const planted = new Set<number>();
  for (let i = 0; i < n; i++) {
    const ids: number[] = [];
    const cx = Math.floor(lon[i] / side), cy = Math.floor(lat[i] / side);
    for (let gy = Math.max(0, cy - 1); gy <= cy; gy++) {
      for (let gx = Math.max(0, cx - 1); gx <= cx; gx++) {
        for (const r of cells[gy * G + gx]) {
          const [x, y] = sq[r];
          if (lon[i] >= x && lon[i] < x + side && lat[i] >= y && lat[i] < y + side) ids.push(r);
        }
      }
    }
    ids.sort((a, b) => a - b);
    if (ids.some((r) => r < 5)) planted.add(i);
    regionIds.push(ids.length ? ids : [R]); // outside every square: region R ("elsewhere")
  }
  const yPred = Uint8Array.from({ length: n }, (_, i) => (rng.next() < (planted.has(i) ? 0.4 : 0.3) ? 1 : 0));
  return individuals(lon, lat, yPred, regionIds);
}

/** (b): N points in C Gaussian clusters (sd 0.01) with uniform centres; region id = cluster. */
export function clusters(n = 1_000_000, C = 100, seed = 2, withRegionIds = true): Individuals {
  const rng = new Rng(seed);
  const centres = Array.from({ length: C }, () => [rng.next(), rng.next()]);
  const lon = new Float64Array(n), lat = new Float64Array(n), yPred = new Uint8Array(n);
  const regionIds: number[][] = [];
  for (let i = 0; i < n; i++) {
    const c = rng.int(C);
    lon[i] = centres[c][0] + 0.01 * rng.normal();
    lat[i] = centres[c][1] + 0.01 * rng.normal();
    yPred[i] = rng.next() < (c < 3 ? 0.33 : 0.3) ? 1 : 0;
    if (withRegionIds) regionIds.push([c]);
  }
  return individuals(lon, lat, yPred, withRegionIds ? regionIds : null);
}
