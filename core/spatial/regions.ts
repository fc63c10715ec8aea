/**
 * Regions over the individuals in scope, by the first of four rules that applies
 * (docs/spatial-fairness.md "Regions"):
 * 1. region_ids (overlap allowed); 2. coordinates + polygons (point in polygon); 3. coordinates alone
 * (k-means, convex hulls for display); 4. otherwise an InvalidParamError (mapping). Region index = position in the sorted list
 * of distinct region ids; with polygons the ids are the polygon positions, so an empty polygon keeps
 * its index instead of shifting the others (the reference's defect).
 */
import { ParamMismatchError } from "../errors.ts";
import { type Alloc, localAlloc } from "../memory.ts";
import { convexHull, convexHulls } from "./hull.ts";
import { kmeans, mergeSmall } from "./kmeans.ts";
import type { Individuals, RegionLists, Regions, Ring } from "./types.ts";
import { docIdAt } from "./doc_ids.ts";
import { balancedCuts, csrLayout } from "./csr.ts";
import { gather } from "./subset.ts";

export type { RegionLists };

/** Clusters of fewer points than this join their nearest larger neighbour (rule 3). */
export const MIN_CLUSTER = 3;

/**
 * Seed of rule 3's k-means. It is fixed, so a collection's regions do not change with the
 * request's Monte Carlo seed.
 */
export const KMEANS_SEED = 42;

/** k of rule 3: max(5, floor(sqrt(N)/2)). */
export function clusterCount(n: number): number {
  return Math.max(5, Math.floor(Math.sqrt(n) / 2));
}

/**
 * Even-odd (crossing number) test of the point (x, y) = (lon, lat) against a ring of [lon, lat]
 * vertices; the ring may be closed or not (a repeated first vertex adds a zero-length edge, which
 * never crosses). Points exactly on an edge follow the half-open rule of the test, so a point on the
 * edge shared by two adjacent polygons falls in one of them.
 */
export function pointInRing(x: number, y: number, ring: Ring): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i], [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Flattens per-individual region id lists, as the loader keeps them (tests and fixtures write lists). */
export function flattenRegionIds(lists: number[][]): RegionLists {
  const start = new Int32Array(lists.length + 1);
  for (let i = 0; i < lists.length; i++) start[i + 1] = start[i] + lists[i].length;
  const ids = new Float64Array(start[lists.length]);
  for (let i = 0; i < lists.length; i++) ids.set(lists[i], start[i]);
  return { start, ids };
}

/**
 * Member lists of R regions: membership t of an individual in scope lies in region `index[L.ids[t]]`
 * (repeats count once). `index` maps an id to its region, so no array the size of all memberships is made
 * beyond the lists, which are views of one buffer from `alloc`. In one thread; the workers make the same
 * lists in parts with countMembers and fillMembers, whose loops these repeat on purpose: while this path
 * called them too (a worker's warm-up does), V8 ran them up to five times slower in some requests (the same
 * code and data; BENCHMARKS.md).
 */
function fromLists(scope: Int32Array, L: RegionLists, index: Int32Array, R: number, alloc: Alloc) {
  const { start, ids } = L;
  const seen = new Int32Array(R).fill(-1), size = new Int32Array(R);
  for (let j = 0; j < scope.length; j++) {
    for (let t = start[scope[j]], end = start[scope[j] + 1]; t < end; t++) {
      const r = index[ids[t]];
      if (seen[r] !== j) (seen[r] = j, size[r]++);
    }
  }
  const { all, next, members } = memberBuffer([size], alloc), at = next[0];
  seen.fill(-1);
  for (let j = 0; j < scope.length; j++) {
    for (let t = start[scope[j]], end = start[scope[j] + 1]; t < end; t++) {
      const r = index[ids[t]];
      if (seen[r] !== j) (seen[r] = j, all[at[r]++] = j);
    }
  }
  return members;
}

/** What rule 1's member lists are made from: the scope, the region ids, each id's region index. */
export interface MemberSource {
  scope: Int32Array;
  lists: RegionLists;
  index: Int32Array;
  /** Regions. */
  R: number;
}

/** Per region, how many of scope positions [from, to) are its members (an id repeated counts once). */
export function countMembers({ scope, lists, index, R }: MemberSource, from: number, to: number): Int32Array {
  const { start, ids } = lists;
  const seen = new Int32Array(R).fill(-1), size = new Int32Array(R);
  for (let j = from; j < to; j++) {
    for (let t = start[scope[j]], end = start[scope[j] + 1]; t < end; t++) {
      const r = index[ids[t]];
      if (seen[r] !== j) (seen[r] = j, size[r]++);
    }
  }
  return size;
}

/**
 * One buffer for every member list (shared, it reaches the workers without a copy) from the counts of
 * consecutive parts of the scope (csr.ts): region r's list holds part 0's members, then part 1's...;
 * `next[k][r]` is where part k writes its first member of r.
 */
export function memberBuffer(sizes: Int32Array[], alloc: Alloc) {
  const { all, start, next } = csrLayout(sizes, alloc);
  const members = Array.from({ length: start.length - 1 }, (_, r) => all.subarray(start[r], start[r + 1]));
  return { all, next, members };
}

/** Writes the members among scope positions [from, to) into `all`, region r's at `next[r]` onward. */
export function fillMembers(
  { scope, lists, index, R }: MemberSource,
  from: number,
  to: number,
  all: Int32Array,
  next: Int32Array,
): void {
  const { start, ids } = lists;
  const seen = new Int32Array(R).fill(-1);
  for (let j = from; j < to; j++) {
    for (let t = start[scope[j]], end = start[scope[j] + 1]; t < end; t++) {
      const r = index[ids[t]];
      if (seen[r] !== j) (seen[r] = j, all[next[r]++] = j);
    }
  }
}

/** Rule 1 applies: every individual in scope has at least one region id. */
const everyoneHasIds = (lists: RegionLists | null, scope: Int32Array) =>
  lists !== null && scope.every((i) => lists.start[i + 1] > lists.start[i]);

/**
 * What rule 1's member lists are made from when no polygons come with the ids (the usual case at scale),
 * so that several workers can make them, each over a part of the scope (countMembers, memberBuffer,
 * fillMembers: the lists buildRegions makes); null when another rule forms the regions, or the scope is
 * empty (buildRegions then says why).
 */
export function memberSource(
  ind: Individuals,
  scope: Int32Array,
  polygons: Ring[] | null,
): (MemberSource & { ids: number[] }) | null {
  if (polygons?.length || scope.length === 0 || !everyoneHasIds(ind.regionIds, scope)) return null;
  const { ids, index, lists } = indexIds(scope, ind.regionIds!);
  return { scope, lists, index, R: ids.length, ids };
}

/** Where to cut the scope into `parts` consecutive parts of about as many memberships each. */
export function memberCuts({ scope, lists }: Pick<MemberSource, "scope" | "lists">, parts: number): number[] {
  const { start } = lists, weights = new Int32Array(scope.length);
  for (let j = 0; j < scope.length; j++) weights[j] = start[scope[j] + 1] - start[scope[j]];
  return balancedCuts(weights, parts);
}

/** 0, 1, ..., n - 1: the index of ids that are already region indices. */
const identity = (n: number) => Int32Array.from({ length: n }, (_, r) => r);

/**
 * The sorted distinct ids in scope and each one's region index (`index[id]`): a dense table when the ids
 * are small integers (the usual case), else the memberships rewritten as region indices (`lists`).
 */
function indexIds(
  scope: Int32Array,
  L: RegionLists,
): { ids: number[]; index: Int32Array; lists: RegionLists } {
  const { start, ids: all } = L;
  let max = 0, count = 0;
  for (let j = 0; j < scope.length; j++) {
    const end = start[scope[j] + 1];
    for (let t = start[scope[j]]; t < end; t++) if (all[t] > max) max = all[t];
    count += end - start[scope[j]];
  }
  // 32-bit ids are integers by their type; wider ones are checked
  if (max <= 4 * count + 1024 && (all instanceof Int32Array || all.every(Number.isInteger))) {
    const dense = new Int32Array(max + 1).fill(-1);
    for (let j = 0; j < scope.length; j++) {
      for (let t = start[scope[j]], end = start[scope[j] + 1]; t < end; t++) dense[all[t]] = 0;
    }
    const ids: number[] = [];
    for (let id = 0; id <= max; id++) if (dense[id] === 0) (dense[id] = ids.length, ids.push(id));
    return { ids, index: dense, lists: L };
  }
  const seen = new Set<number>();
  for (const i of scope) for (let t = start[i]; t < start[i + 1]; t++) seen.add(all[t]);
  const ids = [...seen].sort((a, b) => a - b);
  const index = new Map(ids.map((id, r) => [id, r]));
  const reg = new Int32Array(all.length);
  for (const i of scope) for (let t = start[i]; t < start[i + 1]; t++) reg[t] = index.get(all[t])!;
  return { ids, index: identity(ids.length), lists: { start, ids: reg } };
}

/** Rule 1: the individuals' own region ids; with polygons, ids index the polygon list. */
function byRegionIds(
  ind: Individuals,
  scope: Int32Array,
  L: RegionLists,
  polygons: Ring[] | null,
  alloc: Alloc,
): Regions {
  if (polygons) {
    const P = polygons.length;
    for (const i of scope) {
      for (let t = L.start[i]; t < L.start[i + 1]; t++) {
        const id = L.ids[t];
        if (!(Number.isInteger(id) && id >= 0 && id < P)) {
          const doc = docIdAt(ind.docIds, i) ?? "?";
          throw new ParamMismatchError(
            `region id ${id} of document ${doc} (position ${i}) is beyond the polygon ` +
              `list (${P} polygons, ids 0..${P - 1})`,
            ["region"],
          );
        }
      }
    }
    const ids = Array.from({ length: P }, (_, r) => r);
    const members = fromLists(scope, L, identity(P), P, alloc);
    return { source: "region_ids", ids, members, polygons, unassigned: 0 };
  }
  const { ids, index, lists } = indexIds(scope, L);
  return {
    source: "region_ids",
    ids,
    members: fromLists(scope, lists, index, ids.length, alloc),
    polygons: null,
    unassigned: 0,
  };
}

/** Scope positions bucketed on a grid over their bounding box, so a polygon visits only nearby points. */
function pointGrid(x: Float64Array, y: Float64Array) {
  const n = x.length;
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (let j = 0; j < n; j++) {
    x0 = Math.min(x0, x[j]), x1 = Math.max(x1, x[j]), y0 = Math.min(y0, y[j]), y1 = Math.max(y1, y[j]);
  }
  const G = Math.max(1, Math.min(1024, Math.floor(Math.sqrt(n / 8))));
  const fx = G / (x1 - x0 || 1), fy = G / (y1 - y0 || 1);
  const cellX = (v: number) => Math.min(G - 1, Math.max(0, Math.floor((v - x0) * fx)));
  const cellY = (v: number) => Math.min(G - 1, Math.max(0, Math.floor((v - y0) * fy)));
  const start = new Int32Array(G * G + 1), cell = new Int32Array(n);
  for (let j = 0; j < n; j++) start[(cell[j] = cellY(y[j]) * G + cellX(x[j])) + 1]++;
  for (let c = 0; c < G * G; c++) start[c + 1] += start[c];
  const order = new Int32Array(n), fill = start.slice(0, G * G);
  for (let j = 0; j < n; j++) order[fill[cell[j]]++] = j;
  return { G, start, order, cellX, cellY };
}

/** Rule 2: every polygon containing a point counts it (overlapping polygons overlap as regions). */
function byPolygons(x: Float64Array, y: Float64Array, polygons: Ring[]): Regions {
  const n = x.length, grid = pointGrid(x, y), covered = new Uint8Array(n);
  const members = polygons.map((ring) => {
    let bx0 = Infinity, bx1 = -Infinity, by0 = Infinity, by1 = -Infinity;
    for (const [lon, lat] of ring) {
      bx0 = Math.min(bx0, lon), bx1 = Math.max(bx1, lon), by0 = Math.min(by0, lat), by1 = Math.max(by1, lat);
    }
    const hits: number[] = [];
    for (let gy = grid.cellY(by0); gy <= grid.cellY(by1); gy++) {
      for (let gx = grid.cellX(bx0); gx <= grid.cellX(bx1); gx++) {
        const c = gy * grid.G + gx;
        for (let t = grid.start[c]; t < grid.start[c + 1]; t++) {
          const j = grid.order[t];
          if (x[j] < bx0 || x[j] > bx1 || y[j] < by0 || y[j] > by1) continue;
          if (pointInRing(x[j], y[j], ring)) (hits.push(j), covered[j] = 1);
        }
      }
    }
    return Int32Array.from(hits).sort();
  });
  let unassigned = 0;
  for (let j = 0; j < n; j++) unassigned += 1 - covered[j];
  const ids = polygons.map((_, r) => r);
  return { source: "polygons", ids, members, polygons, unassigned };
}

/** Rule 3: k-means clusters (seeded), small clusters merged, convex hulls as display polygons. */
function byClusters(x: Float64Array, y: Float64Array, seed: number): Regions {
  const members = mergeSmall(kmeans(x, y, clusterCount(x.length), seed), MIN_CLUSTER);
  const polygons = members.map((m) => convexHull(x, y, m));
  return { source: "kmeans", ids: members.map((_, r) => r), members, polygons, unassigned: 0 };
}

/**
 * Rule 1 regions drawn as the convex hulls of their members, for a map: `lon` and `lat` are the scope's
 * coordinates (members index them). Only a map needs them, so they are drawn apart from the audit.
 */
export function regionHulls(
  lon: Float64Array,
  lat: Float64Array,
  members: Int32Array[],
): (Ring | null)[] | null {
  if (!lon.every(Number.isFinite) || !lat.every(Number.isFinite)) return null;
  return convexHulls(lon, lat, members).map((ring, r) => (members[r].length ? ring : null));
}

/**
 * The regions of an audit over the individuals at positions `scope` (ascending, into `ind`); member
 * lists hold scope positions (0..scope.length-1). `seed` seeds k-means (KMEANS_SEED in the
 * service, a fixed seed; tests may vary it). Rule 2 counts the points that
 * fall in no polygon in `unassigned`: they stay in the audit (in N and P), in no region. Rule 1's regions
 * come without display polygons (regionHulls draws them when a map needs them), their member lists in one
 * buffer from `alloc` (shared memory in the workers).
 */
export function buildRegions(
  ind: Individuals,
  scope: Int32Array,
  polygons: Ring[] | null,
  seed: number,
  alloc: Alloc = localAlloc,
): Regions {
  const lists = ind.regionIds;
  if (scope.length === 0) {
    throw new ParamMismatchError(
      "no individuals in scope (with equal_opp=true only individuals with y_true = 1 are audited)",
      ["equal_opp"],
    );
  }
  const polys = polygons && polygons.length ? polygons : null;
  if (everyoneHasIds(lists, scope)) return byRegionIds(ind, scope, lists!, polys, alloc);
  if (ind.lat && ind.lon) {
    const x = gather(ind.lon, scope)!, y = gather(ind.lat, scope)!;
    if (x.every(Number.isFinite) && y.every(Number.isFinite)) {
      return polys ? byPolygons(x, y, polys) : byClusters(x, y, seed);
    }
  }
  throw new ParamMismatchError(
    "neither regions nor coordinates: map region_ids, or lat and lon, for every individual in scope",
    ["mapping"],
  );
}
