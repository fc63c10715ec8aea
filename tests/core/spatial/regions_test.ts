import assert from "node:assert/strict";
import {
  buildRegions,
  clusterCount,
  countMembers,
  fillMembers,
  flattenRegionIds,
  memberBuffer,
  memberCuts,
  memberSource,
  pointInRing,
} from "../../../core/spatial/regions.ts";
import { convexHull, convexHulls } from "../../../core/spatial/hull.ts";
import fc from "fast-check";
import { kmeans, mergeSmall } from "../../../core/spatial/kmeans.ts";
import { InvalidParamError } from "../../../core/errors.ts";
import { Rng } from "../../../core/random.ts";
import { localAlloc, sharedAlloc } from "../../../core/memory.ts";
import type { Individuals, Ring } from "../../../core/spatial/types.ts";

function people(o: { lon?: number[]; lat?: number[]; regionIds?: number[][]; n?: number }): Individuals {
  const n = o.n ?? o.lon?.length ?? o.regionIds!.length;
  return {
    n,
    docIds: Array.from({ length: n }, (_, i) => `d${i}`),
    yPred: new Uint8Array(n),
    yTrue: null,
    lat: o.lat ? Float64Array.from(o.lat) : null,
    lon: o.lon ? Float64Array.from(o.lon) : null,
    regionIds: o.regionIds ? flattenRegionIds(o.regionIds) : null,
    prob: null,
  };
}
const all = (n: number) => Int32Array.from({ length: n }, (_, i) => i);
const lists = (m: Int32Array[]) => m.map((a) => Array.from(a));

const square: Ring = [[0, 0], [2, 0], [2, 2], [0, 2]]; // unclosed
const closedTriangle: Ring = [[10, 10], [14, 10], [10, 14], [10, 10]];

Deno.test("pointInRing: inside, outside, unclosed and closed rings, a concave ring", () => {
  assert.equal(pointInRing(1, 1, square), true);
  assert.equal(pointInRing(3, 1, square), false);
  assert.equal(pointInRing(-0.5, 1, square), false);
  assert.equal(pointInRing(11, 11, closedTriangle), true);
  assert.equal(pointInRing(13, 13, closedTriangle), false); // beyond the hypotenuse x + y = 24
  const u: Ring = [[0, 0], [3, 0], [3, 3], [2, 3], [2, 1], [1, 1], [1, 3], [0, 3]]; // a U
  assert.equal(pointInRing(1.5, 2, u), false); // in the notch
  assert.equal(pointInRing(0.5, 2, u), true);
  assert.equal(pointInRing(2.5, 2, u), true);
});

Deno.test("rule 2: point in polygon; a point in no polygon is counted; an empty polygon keeps its index", () => {
  // lon/lat: p0 in the square, p1 in the triangle, p2 in neither, p3 in the square.
  const ind = people({ lon: [1, 11, 50, 0.5], lat: [1, 11, 50, 1.5] });
  const empty: Ring = [[100, 80], [101, 80], [101, 81]];
  const r = buildRegions(ind, all(4), [empty, square, closedTriangle], 1);
  assert.equal(r.source, "polygons");
  assert.deepEqual(r.ids, [0, 1, 2]);
  assert.deepEqual(lists(r.members), [[], [0, 3], [1]]);
  assert.equal(r.unassigned, 1);
  assert.equal(r.polygons![1], square);
});

Deno.test("rule 2: overlapping polygons both count a point in their overlap; scope positions, not ids", () => {
  const ind = people({ lon: [9, 1, 1.5, 5], lat: [9, 1, 1.5, 5] });
  const big: Ring = [[0, 0], [6, 0], [6, 6], [0, 6]];
  // Scope: individuals 1, 2, 3 (individual 0 out of scope) -> scope positions 0, 1, 2.
  const r = buildRegions(ind, Int32Array.of(1, 2, 3), [square, big], 1);
  assert.deepEqual(lists(r.members), [[0, 1], [0, 1, 2]]);
  assert.equal(r.unassigned, 0);
});

Deno.test("rule 1: the member lists are views of one buffer from the allocator (shared in the workers)", () => {
  const ind = people({ regionIds: [[7], [3, 7], [3], [12, 3, 3]] });
  const r = buildRegions(ind, all(4), null, 1, sharedAlloc);
  assert.deepEqual(lists(r.members), [[1, 2, 3], [0, 1], [3]]);
  const buffer = r.members[0].buffer;
  assert.ok(buffer instanceof SharedArrayBuffer);
  assert.ok(r.members.every((m) => m.buffer === buffer));
  // 6 memberships, the repeated 3 of the last individual counted once
  assert.equal(buffer.byteLength, 4 * 6);
  assert.deepEqual(r.members.map((m) => m.byteOffset), [0, 12, 20]);
});

Deno.test("rule 1: region ids, sorted and overlapping; with polygons they index the polygon list", () => {
  const ind = people({ regionIds: [[7], [3, 7], [3], [12, 3, 3]] });
  const r = buildRegions(ind, all(4), null, 1);
  assert.equal(r.source, "region_ids");
  assert.deepEqual(r.ids, [3, 7, 12]);
  assert.deepEqual(lists(r.members), [[1, 2, 3], [0, 1], [3]]);
  // Large ids (a Map instead of a dense table) sort the same way.
  const big = buildRegions(people({ regionIds: [[4e9], [5, 4e9], [5]] }), all(3), null, 1);
  assert.deepEqual(big.ids, [5, 4e9]);
  assert.deepEqual(lists(big.members), [[1, 2], [0, 1]]);
  const withPolys = buildRegions(people({ regionIds: [[0], [2], [2]] }), all(3), [square, square, square], 1);
  assert.deepEqual(withPolys.ids, [0, 1, 2]); // polygon 1 is empty and keeps its index
  assert.deepEqual(lists(withPolys.members), [[0], [], [1, 2]]);
  assert.throws(
    () => buildRegions(people({ regionIds: [[0], [3]] }), all(2), [square, square], 1),
    (e: Error) =>
      e instanceof InvalidParamError && /region id 3 .* beyond the polygon list \(2 polygons/.test(e.message),
  );
});

Deno.test("rule 4: neither regions nor coordinates is a 422; so is an empty scope", () => {
  assert.throws(() => buildRegions(people({ n: 3 }), all(3), null, 1), (e: Error) => {
    assert.ok(e instanceof InvalidParamError);
    assert.match(e.message, /neither regions nor coordinates/);
    return true;
  });
  assert.throws(() => buildRegions(people({ n: 3 }), new Int32Array(0), null, 1), /no individuals in scope/);
});

Deno.test("rule 3: k-means finds well-separated blobs; k = max(5, floor(sqrt(N)/2))", () => {
  assert.equal(clusterCount(10), 5);
  assert.equal(clusterCount(400), 10);
  assert.equal(clusterCount(1_000_000), 500);
  // 5 blobs of 40 points (sd 0.01) at distinct centres: N = 200 gives k = max(5, 7) = 7, so some blobs
  // split; every cluster must still lie within one blob, and every blob be covered.
  const rng = new Rng(4), centres = [[0, 0], [5, 5], [10, 0], [0, 10], [10, 10]];
  const lon: number[] = [], lat: number[] = [], blob: number[] = [];
  centres.forEach(([cx, cy], b) => {
    for (let i = 0; i < 40; i++) {
      (lon.push(cx + 0.01 * rng.normal()), lat.push(cy + 0.01 * rng.normal()), blob.push(b));
    }
  });
  const r = buildRegions(people({ lon, lat }), all(200), null, 42);
  assert.equal(r.source, "kmeans");
  const covered = new Set<number>();
  for (const m of r.members) {
    const bs = new Set(Array.from(m, (i) => blob[i]));
    assert.equal(bs.size, 1, "a cluster spans two blobs");
    covered.add([...bs][0]);
  }
  assert.equal(covered.size, 5);
  assert.equal(r.members.reduce((s, m) => s + m.length, 0), 200);
  assert.deepEqual(r.ids, r.members.map((_, i) => i));
  // Same seed, same clusters.
  assert.deepEqual(lists(buildRegions(people({ lon, lat }), all(200), null, 42).members), lists(r.members));
});

Deno.test("rule 3: clusters of fewer than 3 points join the nearest larger cluster", () => {
  // Hand-made clustering: cluster 0 = 4 points near (0,0), cluster 1 = 2 points near (1,0),
  // cluster 2 = 5 points near (10,0), cluster 3 empty. Cluster 1 is nearer to 0 than to 2.
  const assign = Int32Array.of(0, 0, 0, 0, 1, 1, 2, 2, 2, 2, 2);
  const km = { assign, cx: Float64Array.of(0, 1, 10, 50), cy: Float64Array.of(0, 0, 0, 0), iterations: 1 };
  assert.deepEqual(lists(mergeSmall(km, 3)), [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]);
  // Through k-means: 2 outliers far from 3 tight groups of 30 end up inside some larger cluster.
  const x = Float64Array.from(
    { length: 92 },
    (_, i) => (i < 90 ? Math.floor(i / 30) * 10 + (i % 30) * 1e-3 : 100),
  );
  const y = Float64Array.from({ length: 92 }, (_, i) => (i < 90 ? 0 : i === 90 ? 0 : 0.001));
  const members = mergeSmall(kmeans(x, y, 5, 1), 3);
  for (const m of members) assert.ok(m.length >= 3, `cluster of ${m.length}`);
  assert.equal(members.reduce((s, m) => s + m.length, 0), 92);
});

Deno.test("convex hull: a square with inner points and a duplicate, counter-clockwise", () => {
  const x = Float64Array.of(0, 2, 2, 0, 1, 0.5, 1.5, 2), y = Float64Array.of(0, 0, 2, 2, 1, 0.5, 1, 0);
  assert.deepEqual(convexHull(x, y, [0, 1, 2, 3, 4, 5, 6, 7]), [[0, 0], [2, 0], [2, 2], [0, 2]]);
  assert.deepEqual(convexHull(x, y, [4]), [[1, 1]]);
  assert.deepEqual(convexHull(x, y, [0, 2]), [[0, 0], [2, 2]]);
  // many sets over the same points: the same rings
  const sets = [
    Int32Array.of(0, 1, 2, 3, 4, 5, 6, 7),
    Int32Array.of(4),
    Int32Array.of(0, 2),
    Int32Array.of(),
  ];
  assert.deepEqual(convexHulls(x, y, sets), [
    [[0, 0], [2, 0], [2, 2], [0, 2]],
    [[1, 1]],
    [[0, 0], [2, 2]],
    [],
  ]);
});

/** One vertex per distinct point: convexHull keeps a set's repeated point twice ([[0, 0], [0, 0]]). */
const distinct = (ring: Ring) =>
  ring.filter((p, k) => !ring.slice(0, k).some((q) => q[0] === p[0] && q[1] === p[1]));

Deno.test("convex hulls of many sets equal each set's own hull (duplicates, collinear points, any order)", () => {
  // points on a small integer grid: many duplicates and collinear runs, the hard cases of a hull
  const point = fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }));
  const sets = fc.array(fc.array(fc.nat(39), { maxLength: 40 }), { minLength: 1, maxLength: 6 });
  fc.assert(fc.property(fc.array(point, { minLength: 40, maxLength: 40 }), sets, (pts, idx) => {
    const x = Float64Array.from(pts, (p) => p[0]), y = Float64Array.from(pts, (p) => p[1]);
    const each = idx.map((s) => distinct(convexHull(x, y, s)));
    assert.deepEqual(convexHulls(x, y, idx.map((s) => Int32Array.from(s))), each);
  }));
  // hundreds of points, signed, fractional, repeated, and -0 beside 0 (one place: one vertex)
  const coord = fc.oneof(fc.integer({ min: -3, max: 3 }).map((v) => v / 2), fc.constant(-0));
  const many = fc.array(fc.tuple(coord, coord), { minLength: 600, maxLength: 700 });
  const bigSets = fc.array(fc.array(fc.nat(599), { maxLength: 300 }), { minLength: 1, maxLength: 4 });
  fc.assert(
    fc.property(many, bigSets, (pts, idx) => {
      const x = Float64Array.from(pts, (p) => p[0]), y = Float64Array.from(pts, (p) => p[1]);
      const key = (ring: Ring) => ring.map(([a, b]) => `${a + 0},${b + 0}`);
      const each = idx.map((s) => key(distinct(convexHull(x, y, s))));
      assert.deepEqual(convexHulls(x, y, idx.map((s) => Int32Array.from(s))).map(key), each);
    }),
    { numRuns: 60 },
  );
});

Deno.test("region ids flattened as the loader keeps them; a partial list falls back to coordinates", () => {
  assert.deepEqual(flattenRegionIds([[1, 2], [3], []]), {
    start: Int32Array.of(0, 2, 3, 3),
    ids: Float64Array.of(1, 2, 3),
  });
  const ind = people({ regionIds: [[7], [3, 7], [3], [12, 3, 3]] });
  assert.deepEqual(lists(buildRegions(ind, all(4), null, 1).members), [[1, 2, 3], [0, 1], [3]]);
  // Individual 2 has no region id: rule 1 does not apply, and without coordinates it is rule 4.
  const partial = people({ regionIds: [[7], [3], [], [3]] });
  assert.throws(() => buildRegions(partial, all(4), null, 1), /neither regions nor coordinates/);
  // Out of scope, the missing list does not matter.
  assert.deepEqual(buildRegions(partial, Int32Array.of(0, 1, 3), null, 1).ids, [3, 7]);
});

Deno.test("rule 1's member lists made in parts of the scope equal buildRegions' (repeats, sparse ids, any cut)", () => {
  // up to 40 individuals with 1 to 5 ids each (repeats allowed), small ids or sparse ones (the Map path)
  const idLists = fc.array(fc.array(fc.nat(6), { minLength: 1, maxLength: 5 }), {
    minLength: 1,
    maxLength: 40,
  });
  fc.assert(
    fc.property(
      idLists,
      fc.boolean(),
      fc.integer({ min: 1, max: 4 }),
      fc.nat(),
      (ids, sparse, parts, pick) => {
        const ind = people({ regionIds: ids.map((l) => l.map((id) => (sparse ? id * 1e9 + 7 : id))) });
        // any scope of at least one position (a bit of `pick` per position)
        const scope = all(ids.length).filter((i) => ((pick >> (i % 30)) & 1) === 0 || i === 0);
        const source = memberSource(ind, scope, null)!;
        const cuts = memberCuts(source, parts);
        assert.equal(cuts.length, parts + 1);
        const sizes = cuts.slice(1).map((to, k) => countMembers(source, cuts[k], to));
        const { all: buffer, next, members } = memberBuffer(sizes, localAlloc);
        cuts.slice(1).forEach((to, k) => fillMembers(source, cuts[k], to, buffer, next[k]));
        const whole = buildRegions(ind, scope, null, 1);
        assert.deepEqual(source.ids, whole.ids);
        assert.deepEqual(lists(members), lists(whole.members));
      },
    ),
  );
  // other rules: polygons with the ids, an individual without ids; and an empty scope
  const ind = people({ regionIds: [[1], []] });
  assert.equal(memberSource(ind, Int32Array.of(0), [[[0, 0], [1, 0], [0, 1]]]), null);
  assert.equal(memberSource(ind, Int32Array.of(0, 1), null), null);
  assert.equal(memberSource(ind, Int32Array.of(), null), null);
  assert.notEqual(memberSource(ind, Int32Array.of(0), null), null);
});

Deno.test("memberCuts: parts of about as many memberships, in scope order", () => {
  // memberships per position: 1, 1, 6, 1, 1 (10 in all)
  const source = { scope: all(5), lists: flattenRegionIds([[0], [0], [0, 1, 2, 3, 4, 5], [0], [0]]) };
  assert.deepEqual(memberCuts(source, 1), [0, 5]);
  // halves: position 2 brings the count to 8, the first past 5
  assert.deepEqual(memberCuts(source, 2), [0, 3, 5]);
  // thirds: 8 passes 3.3 at position 2, 9 passes 6.7 at position 3
  assert.deepEqual(memberCuts(source, 3), [0, 3, 4, 5]);
});
