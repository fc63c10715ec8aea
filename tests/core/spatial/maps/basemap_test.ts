import assert from "node:assert/strict";
import { basemapBox, basemapFor, clipLine, clipRing } from "../../../../core/spatial/maps/basemap.ts";

/** Shoelace area of a ring. */
function area(ring: [number, number][]): number {
  let a = 0;
  for (let i = 0; i < ring.length; i++) {
    const [x0, y0] = ring[i], [x1, y1] = ring[(i + 1) % ring.length];
    a += x0 * y1 - x1 * y0;
  }
  return Math.abs(a) / 2;
}

Deno.test("clipRing: a square half over the box keeps the half inside (area by hand: 2 × 4 = 8)", () => {
  const ring: [number, number][] = [[-2, 0], [2, 0], [2, 4], [-2, 4]];
  const clipped = clipRing(ring, [0, 0, 10, 10]);
  assert.equal(area(clipped), 8);
  for (const [x, y] of clipped) assert.ok(x >= 0 && x <= 10 && y >= 0 && y <= 10);
  assert.deepEqual(clipRing(ring, [5, 5, 6, 6]), []);
  assert.equal(area(clipRing(ring, [-10, -10, 10, 10])), 16);
});

Deno.test("clipLine: the parts of a polyline inside the box, split where it leaves", () => {
  // in, out over the top, back in
  const parts = clipLine([[1, 1], [1, 20], [2, 20], [2, 1]], [0, 0, 10, 10]);
  assert.deepEqual(parts, [[[1, 1], [1, 10]], [[2, 10], [2, 1]]]);
  assert.deepEqual(clipLine([[-5, 5], [15, 5]], [0, 0, 10, 10]), [[[0, 5], [10, 5]]]);
  assert.deepEqual(clipLine([[20, 20], [30, 30]], [0, 0, 10, 10]), []);
});

Deno.test("basemapBox: the data's extent and its largest span (≥ 1°) more on every side, inside the world", () => {
  assert.deepEqual(basemapBox([20, 30, 24, 32]), [16, 26, 28, 36]);
  assert.deepEqual(basemapBox([23.7, 37.9, 23.72, 37.92]), [22.7, 36.9, 24.72, 38.92]);
  assert.deepEqual(basemapBox([-179, -80, 179, 80]), [-180, -85.06, 180, 85.06]);
});

Deno.test("basemapFor: Kansas City has U.S. state borders, Greece none; geometry stays inside the box", async () => {
  const kansas = (await basemapFor([-95.5, 38.5, -94, 39.5]))!; // Kansas City, across the Missouri line
  assert.equal(kansas.scale, "50m");
  assert.ok(kansas.states.length > 0, "state borders");
  assert.match(kansas.attribution, /Census/);
  assert.ok(kansas.land.length > 0);
  const greece = (await basemapFor([20.5, 35.5, 27.5, 41.5]))!;
  assert.deepEqual(greece.states, []);
  assert.ok(greece.coast.length > 0 && greece.borders.length > 0, "coasts and borders");
  for (const b of [kansas, greece]) {
    const [x0, y0, x1, y1] = b.box;
    const points = [...b.land.flat(2), ...b.coast.flat(), ...b.borders.flat(), ...b.states.flat()];
    for (const [x, y] of points) {
      assert.ok(x >= x0 - 1e-9 && x <= x1 + 1e-9 && y >= y0 - 1e-9 && y <= y1 + 1e-9);
    }
  }
  // a continent-wide view takes the 110m countries
  assert.equal((await basemapFor([-125, 25, -66, 49]))!.scale, "110m");
});

Deno.test("basemapFor: none without a box or for coordinates that are not longitudes and latitudes", async () => {
  assert.equal(await basemapFor(null), null);
  assert.equal(await basemapFor([350_000, 4_100_000, 360_000, 4_200_000]), null);
});
