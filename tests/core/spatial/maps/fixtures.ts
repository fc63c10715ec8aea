/** Small hand-made regions and audits for the map tests; every number is chosen, not computed by us. */
import type { AuditResult, Regions, RegionStat, Ring } from "../../../../core/spatial/types.ts";

/** A square ring of side `d` degrees with its south-west corner at (lon, lat). */
export function square(lon: number, lat: number, d = 0.01): Ring {
  return [[lon, lat], [lon + d, lat], [lon + d, lat + d], [lon, lat + d]];
}

/** One audit line; rate = p/n. */
export function stat(
  idx: number,
  n: number,
  p: number,
  s: number,
  signif: boolean,
  pValue = 0.5,
): RegionStat {
  return {
    idx,
    region_id: idx * 10,
    n,
    p,
    rate: n ? p / n : null,
    raw_stat: 0,
    stat: s,
    p_value: pValue,
    is_signif: signif,
  };
}

/**
 * Four regions over 400 individuals with 120 positive (overall rate 0.3), threshold T = 0.1.
 * Rate differences by hand: r0 0.5 − 0.3 → +20 pp (significant), r1 0.1 − 0.3 → −20 pp (significant),
 * r2 0.35 − 0.3 → +5 pp, r3 0.25 − 0.3 → −5 pp. Cap: the largest significant |difference|, 20 pp.
 */
export function fourRegions(polygons: (Ring | null)[] | null = [
  square(23.70, 37.90),
  square(23.71, 37.90),
  square(23.70, 37.91),
  square(23.71, 37.91),
]): { regions: Regions; audit: AuditResult } {
  const regions: Regions = {
    source: polygons ? "polygons" : "region_ids",
    ids: [0, 10, 20, 30],
    members: [0, 1, 2, 3].map(() => new Int32Array(0)),
    polygons,
    unassigned: 0,
  };
  const stats = [
    stat(0, 100, 50, 0.5, true),
    stat(1, 100, 10, 0.3, true),
    stat(2, 100, 35, 0.05, false),
    stat(3, 100, 25, 0.02, false),
  ];
  const audit: AuditResult = {
    sbi_score: 0.2175,
    signif_thresh: 0.1,
    total_signif_regions: 2,
    stats,
    n_individuals: 400,
    n_positives: 120,
  };
  return { regions, audit };
}
