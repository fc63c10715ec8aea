/** Parts of an audit's data: some individuals, and regions seen through a subset of positions. */
import type { Individuals, RegionLists, Regions } from "./types.ts";

/** The region lists of the individuals at `positions`, in that order. */
function subsetLists(L: RegionLists, positions: Int32Array): RegionLists {
  const start = new Int32Array(positions.length + 1);
  positions.forEach((i, j) => (start[j + 1] = start[j] + L.start[i + 1] - L.start[i]));
  const ids = new Float64Array(start[positions.length]);
  positions.forEach((i, j) => ids.set(L.ids.subarray(L.start[i], L.start[i + 1]), start[j]));
  return { start, ids };
}

/** The individuals at `positions` (ascending), as their own Individuals in that order. */
export function subsetIndividuals(ind: Individuals, positions: Int32Array): Individuals {
  const f64 = (a: Float64Array | null) => a && Float64Array.from(positions, (i) => a[i]);
  const u8 = (a: Uint8Array | null) => a && Uint8Array.from(positions, (i) => a[i]);
  return {
    n: positions.length,
    docIds: Array.from(positions, (i) => ind.docIds[i]),
    yPred: u8(ind.yPred)!,
    yTrue: u8(ind.yTrue),
    lat: f64(ind.lat),
    lon: f64(ind.lon),
    regionIds: ind.regionIds && subsetLists(ind.regionIds, positions),
    prob: f64(ind.prob),
  };
}

/**
 * Regions whose members are positions 0..n-1, restricted to `positions` (ascending) and renumbered to
 * their index in it; every region keeps its index, even when none of its members remain.
 */
export function restrictRegions(regions: Regions, positions: Int32Array, n: number): Regions {
  const at = new Int32Array(n).fill(-1);
  positions.forEach((i, j) => (at[i] = j));
  const covered = new Uint8Array(positions.length);
  const members = regions.members.map((m) => {
    const kept: number[] = [];
    for (const i of m) if (at[i] >= 0) (kept.push(at[i]), covered[at[i]] = 1);
    return Int32Array.from(kept);
  });
  return { ...regions, members, unassigned: positions.length - covered.reduce((s, c) => s + c, 0) };
}
