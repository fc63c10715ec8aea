import assert from "node:assert/strict";
import { buildRegions, flattenRegionIds, regionHulls } from "../../../core/spatial/regions.ts";
import type { Individuals } from "../../../core/spatial/types.ts";

Deno.test("region_ids with coordinates: each region is drawn as the convex hull of its members", () => {
  // region 0: the corners of the unit square and its centre; region 1: three points of a triangle
  const lon = [0, 1, 1, 0, 0.5, 5, 6, 5];
  const lat = [0, 0, 1, 1, 0.5, 5, 5, 6];
  const ind: Individuals = {
    n: 8,
    docIds: lon.map((_, i) => `d${i}`),
    yPred: new Uint8Array(8),
    yTrue: null,
    lat: Float64Array.from(lat),
    lon: Float64Array.from(lon),
    regionIds: flattenRegionIds([[0], [0], [0], [0], [0], [1], [1], [1]]),
    prob: null,
  };
  const regions = buildRegions(ind, Int32Array.from({ length: 8 }, (_, i) => i), null, 1);
  assert.equal(regions.source, "region_ids");
  assert.equal(regions.polygons, null); // drawn only for a map
  const polygons = regionHulls(ind.lon!, ind.lat!, regions.members);
  const square = polygons![0]!.map(([x, y]) => `${x},${y}`).sort();
  assert.deepEqual(square, ["0,0", "0,1", "1,0", "1,1"]); // the centre is inside, not a vertex
  assert.deepEqual(polygons![1]!.map(([x, y]) => `${x},${y}`).sort(), ["5,5", "5,6", "6,5"]);
});
