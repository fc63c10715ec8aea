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
  const pts = Int32Array.from(Array.from(idx).filter((i) => !inside(i)));
  pts.sort((a, b) => x[a] - x[b] || y[a] - y[b]);
  return chainHull(x, y, pts);
}

/**
 * The convex hulls of many point sets over the same points (every region of an audit), each as
 * convexHull gives it, one vertex per distinct point (individuals often share a place): the points
 * strictly inside the octagon of a set's eight extremes are dropped, and the few left sorted by (x, y),
 * rid of repeats, and chained. A set costs one pass over its members, whatever the other points:
 * ranking every point of an audit first (100,000 of them) cost more than the 500 hulls a map draws.
 */
export function convexHulls(x: Float64Array, y: Float64Array, sets: Int32Array[]): Ring[] {
  return sets.map((set) => (set.length ? distinctHull(x, y, set) : []));
}

/** The hull of one non-empty set over its distinct points (see convexHulls). */
function distinctHull(x: Float64Array, y: Float64Array, set: Int32Array): Ring {
  // a copy: the set may be the caller's (a region's member list) when nothing is inside
  const order = outsideOctagon(x, y, set).slice().sort((a, b) => x[a] - x[b] || y[a] - y[b]);
  const px = new Float64Array(order.length), py = new Float64Array(order.length);
  let u = 0;
  for (const i of order) {
    if (u === 0 || px[u - 1] !== x[i] || py[u - 1] !== y[i]) (px[u] = x[i], py[u] = y[i], u++);
  }
  return chainHull(px, py, Int32Array.from({ length: u }, (_, k) => k));
}

/** The points of `set` not strictly inside the octagon of its extremes (those can be hull vertices). */
function outsideOctagon(x: Float64Array, y: Float64Array, set: Int32Array): Int32Array {
  // counter-clockwise from the bottom: min y, max x−y, max x, max x+y, max y, max y−x, min x, min x+y
  const e = new Int32Array(8).fill(set[0]);
  for (const i of set) {
    const xi = x[i], yi = y[i];
    if (yi < y[e[0]]) e[0] = i;
    if (xi - yi > x[e[1]] - y[e[1]]) e[1] = i;
    if (xi > x[e[2]]) e[2] = i;
    if (xi + yi > x[e[3]] + y[e[3]]) e[3] = i;
    if (yi > y[e[4]]) e[4] = i;
    if (yi - xi > y[e[5]] - x[e[5]]) e[5] = i;
    if (xi < x[e[6]]) e[6] = i;
    if (xi + yi < x[e[7]] + y[e[7]]) e[7] = i;
  }
  // the octagon's edges between distinct corners, as half-planes dx·(py − ay) − dy·(px − ax) > 0
  const ax: number[] = [], ay: number[] = [], dx: number[] = [], dy: number[] = [];
  for (let k = 0; k < 8; k++) {
    const a = e[k], b = e[(k + 1) & 7];
    if (x[a] === x[b] && y[a] === y[b]) continue;
    ax.push(x[a]), ay.push(y[a]), dx.push(x[b] - x[a]), dy.push(y[b] - y[a]);
  }
  if (ax.length < 3) return set; // fewer than three corners: nothing is strictly inside
  const out = new Int32Array(set.length);
  let kept = 0;
  for (const i of set) {
    const px = x[i], py = y[i];
    let k = 0;
    while (k < ax.length && dx[k] * (py - ay[k]) - dy[k] * (px - ax[k]) > 0) k++;
    if (k < ax.length) out[kept++] = i;
  }
  return out.subarray(0, kept);
}

/**
 * Andrew's monotone chain over the points `order` of (px, py), sorted by (x, y); counter-clockwise, not
 * closed; points on an edge are dropped (convexHulls passes distinct points only).
 */
function chainHull(px: Float64Array, py: Float64Array, order: Int32Array): Ring {
  const chain = (from: number, to: number, step: number) => {
    const out: number[] = [];
    for (let k = from; k !== to; k += step) {
      const i = order[k];
      while (out.length >= 2) {
        const a = out[out.length - 2], b = out[out.length - 1];
        if (cross(px[a], py[a], px[b], py[b], px[i], py[i]) > 0) break;
        out.pop();
      }
      out.push(i);
    }
    return out;
  };
  const lower = chain(0, order.length, 1), upper = chain(order.length - 1, -1, -1);
  const ring = lower.slice(0, -1).concat(upper.slice(0, -1));
  const unique = ring.length ? ring : [order[0]];
  return unique.map((r) => [px[r], py[r]]);
}
