/** Parts of an audit's data: some individuals, and regions seen through a subset of positions. */
import type { Individuals, RegionLists, Regions } from "./types.ts";
import { docIdAt, docIdCount } from "./doc_ids.ts";

/** The region lists of the individuals at `positions`, in that order. */
function subsetLists(L: RegionLists, positions: Int32Array): RegionLists {
  const start = new Int32Array(positions.length + 1);
  positions.forEach((i, j) => (start[j + 1] = start[j] + L.start[i + 1] - L.start[i]));
  const ids = new Float64Array(start[positions.length]);
  positions.forEach((i, j) => ids.set(L.ids.subarray(L.start[i], L.start[i + 1]), start[j]));
  return { start, ids };
}

/**
 * `a[positions[j]]` for every j, in a loop: TypedArray.from with a function is several times slower, and
 * some calls run on the event loop. Null stays null.
 */
export function gather<T extends Float64Array | Int32Array | Uint8Array>(
  a: T | null,
  positions: Int32Array,
): T | null {
  if (!a) return null;
  const out = new (a.constructor as new (n: number) => T)(positions.length);
  for (let j = 0; j < positions.length; j++) out[j] = a[positions[j]];
  return out;
}

/**
 * The individuals at `positions` (ascending), as their own Individuals in that order; without document
 * ids when `ind` comes without them (a caller that reads none leaves them out: a threshold's test part).
 */
export function subsetIndividuals(ind: Individuals, positions: Int32Array): Individuals {
  const docIds = docIdCount(ind.docIds) ? new Array<string>(positions.length) : [];
  for (let j = 0; j < docIds.length; j++) docIds[j] = docIdAt(ind.docIds, positions[j])!;
  return {
    n: positions.length,
    docIds,
    yPred: gather(ind.yPred, positions)!,
    yTrue: gather(ind.yTrue, positions),
    lat: gather(ind.lat, positions),
    lon: gather(ind.lon, positions),
    regionIds: ind.regionIds && subsetLists(ind.regionIds, positions),
    prob: gather(ind.prob, positions),
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
