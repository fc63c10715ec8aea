/** Convex hulls of point sets: the display polygons of k-means regions (regions rule 3). */
import type { Ring } from "./types.ts";

const cross = (ox: number, oy: number, ax: number, ay: number, bx: number, by: number) =>
  (ax - ox) * (by - oy) - (ay - oy) * (bx - ox);

/**
 * Convex hull of the points `idx` of (x, y), counter-clockwise, not closed (Andrew's monotone chain).
 * Points strictly inside the quadrilateral of the four extreme points cannot be on the hull and are
 * dropped first, which leaves little to sort for a cluster of thousands. Fewer than 3 distinct points
 * give those points (a degenerate ring).
 */
export function convexHull(x: Float64Array, y: Float64Array, idx: Int32Array | number[]): Ring {
  if (idx.length === 0) return [];
  let minX = idx[0], maxX = idx[0], minY = idx[0], maxY = idx[0];
  for (const i of idx) {
    if (x[i] < x[minX]) minX = i;
    if (x[i] > x[maxX]) maxX = i;
    if (y[i] < y[minY]) minY = i;
    if (y[i] > y[maxY]) maxY = i;
  }
  const quad = [minX, minY, maxX, maxY]; // counter-clockwise around the set
  const inside = (i: number) => {
    for (let e = 0; e < 4; e++) {
      const a = quad[e], b = quad[(e + 1) % 4];
      if (cross(x[a], y[a], x[b], y[b], x[i], y[i]) <= 0) return false;
    }
    return true;
  };
  const pts = Array.from(idx).filter((i) => !inside(i));
  pts.sort((a, b) => x[a] - x[b] || y[a] - y[b]);
  const chain = (order: number[]) => {
    const out: number[] = [];
    for (const i of order) {
      while (out.length >= 2) {
        const a = out[out.length - 2], b = out[out.length - 1];
        if (cross(x[a], y[a], x[b], y[b], x[i], y[i]) > 0) break;
        out.pop();
      }
      out.push(i);
    }
    return out;
  };
  const lower = chain(pts), upper = chain(pts.slice().reverse());
  const ring = lower.slice(0, -1).concat(upper.slice(0, -1));
  const unique = ring.length ? ring : [pts[0]];
  return unique.map((i) => [x[i], y[i]]);
}
