import assert from "node:assert/strict";
import { restrictRegions, subsetIndividuals } from "../../../core/spatial/subset.ts";
import type { Individuals } from "../../../core/spatial/types.ts";

Deno.test("subsetIndividuals: every column of the individuals at the positions, in that order; absent stays null", () => {
  const ind: Individuals = {
    n: 5,
    docIds: ["a", "b", "c", "d", "e"],
    yPred: Uint8Array.from([1, 0, 1, 1, 0]),
    yTrue: null,
    lat: Float64Array.from([10, 11, 12, 13, 14]),
    lon: Float64Array.from([-1, -2, -3, -4, -5]),
    regionIds: { start: Int32Array.from([0, 1, 3, 3, 4, 6]), ids: Float64Array.from([7, 7, 8, 9, 8, 7]) },
    prob: Float64Array.from([0.9, 0.1, 0.8, 0.7, 0.2]),
  };
  const part = subsetIndividuals(ind, Int32Array.from([1, 3, 4]));
  assert.equal(part.n, 3);
  assert.deepEqual(part.docIds, ["b", "d", "e"]);
  assert.deepEqual([...part.yPred], [0, 1, 0]);
  assert.equal(part.yTrue, null);
  assert.deepEqual([...part.lat!], [11, 13, 14]);
  assert.deepEqual([...part.lon!], [-2, -4, -5]);
  assert.deepEqual([...part.prob!], [0.1, 0.7, 0.2]);
  assert.ok(part.yPred instanceof Uint8Array && part.lat instanceof Float64Array);
  // b: [7, 8], d: [9], e: [8, 7]
  assert.deepEqual([...part.regionIds!.start], [0, 2, 3, 5]);
  assert.deepEqual([...part.regionIds!.ids], [7, 8, 9, 8, 7]);
  // individuals without their document ids give a part without them
  const anonymous = subsetIndividuals({ ...ind, docIds: [] }, Int32Array.from([1, 3, 4]));
  assert.deepEqual(anonymous.docIds, []);
  assert.deepEqual([...anonymous.yPred], [0, 1, 0]);
});

Deno.test("restrictRegions: members renumbered to their index among the positions; every region kept", () => {
  const regions = {
    source: "region_ids" as const,
    ids: [10, 11, 12],
    members: [Int32Array.from([0, 2, 4]), Int32Array.from([1, 3]), Int32Array.from([4])],
    polygons: null,
    unassigned: 0,
  };
  const r = restrictRegions(regions, Int32Array.from([1, 2, 4]), 5);
  assert.deepEqual(r.members.map((m) => [...m]), [[1, 2], [0], [2]]);
  assert.deepEqual(r.ids, [10, 11, 12]);
});
