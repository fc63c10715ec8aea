/**
 * k-means on coordinates for regions rule 3 (docs/spatial-fairness.md "Regions"), fast enough for a
 * million points: seeded k-means++ on a sample, then Lloyd iterations with Hamerly's bounds (a point
 * whose distance to its centre is below half the gap to the next centre is not re-scanned), at most
 * MAX_ITER passes, and scikit-learn's stopping rule: the centres' total squared shift at most TOL times
 * the mean coordinate variance.
 */
import { Rng } from "../random.ts";

/** Lloyd passes at most: bounds the work on data that never settles. */
export const MAX_ITER = 100;
/** scikit-learn's default relative tolerance, so our clusters stop where the reference's would. */
export const TOL = 1e-4;
const SAMPLE = 20_000;

export interface KMeans {
  /** Cluster of each point, 0..k-1. */
  assign: Int32Array;
  cx: Float64Array;
  cy: Float64Array;
  iterations: number;
}

/** k-means++ seeding on up to SAMPLE points drawn with `rng` (distinct points only become centres). */
function seedCentres(x: Float64Array, y: Float64Array, k: number, rng: Rng) {
  const n = x.length;
  const m = Math.min(n, Math.max(SAMPLE, 20 * k));
  const pick = new Int32Array(m);
  for (let j = 0; j < m; j++) pick[j] = m === n ? j : rng.int(n);
  const d2 = new Float64Array(m).fill(Infinity);
  const cx = new Float64Array(k), cy = new Float64Array(k);
  let c = pick[rng.int(m)];
  for (let j = 0; j < k; j++) {
    cx[j] = x[c];
    cy[j] = y[c];
    let total = 0;
    for (let t = 0; t < m; t++) {
      const i = pick[t], dx = x[i] - cx[j], dy = y[i] - cy[j], d = dx * dx + dy * dy;
      if (d < d2[t]) d2[t] = d;
      total += d2[t];
    }
    if (j + 1 === k) break;
    if (total === 0) return { cx: cx.slice(0, j + 1), cy: cy.slice(0, j + 1) }; // fewer distinct points
    let u = rng.next() * total, t = 0;
    for (; t < m - 1; t++) {
      u -= d2[t];
      if (u < 0 && d2[t] > 0) break;
    }
    c = pick[t];
  }
  return { cx, cy };
}

/** Centres sorted by x, so a scan can stop once |dx| alone exceeds the second-best distance. */
class SortedCentres {
  order: Int32Array;
  xs: Float64Array;
  ys: Float64Array;
  constructor(cx: Float64Array, cy: Float64Array) {
    this.order = Int32Array.from(cx.keys()).sort((a, b) => cx[a] - cx[b] || a - b);
    this.xs = Float64Array.from(this.order, (c) => cx[c]);
    this.ys = Float64Array.from(this.order, (c) => cy[c]);
  }

  /** Results of the last scan: nearest centre, squared distances to the nearest and second nearest. */
  b = 0;
  d1 = 0;
  d2 = 0;

  /** Finds the nearest and second-nearest centre of (px, py) into b, d1, d2 (ties: lower centre id). */
  scan(px: number, py: number): void {
    const { xs, ys, order } = this, K = xs.length;
    let lo = 0, hi = K;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (xs[mid] < px) lo = mid + 1;
      else hi = mid;
    }
    let b = -1, d1 = Infinity, d2 = Infinity;
    for (let l = lo - 1, r = lo; l >= 0 || r < K;) {
      const dl = l >= 0 ? px - xs[l] : Infinity, dr = r < K ? xs[r] - px : Infinity;
      const t = dl <= dr ? l-- : r++, g = dl <= dr ? dl : dr;
      if (g * g > d2) break;
      const dx = px - xs[t], dy = py - ys[t], d = dx * dx + dy * dy;
      if (d < d1 || (d === d1 && order[t] < order[b])) (d2 = d1, d1 = d, b = t);
      else if (d < d2) d2 = d;
    }
    this.b = order[b];
    this.d1 = d1;
    this.d2 = d2;
  }
}

/** Mean of the two coordinates' variances (the scale of scikit-learn's tolerance). */
function meanVariance(x: Float64Array, y: Float64Array): number {
  const v = (a: Float64Array) => {
    let m = 0, m2 = 0;
    for (let i = 0; i < a.length; i++) m += a[i];
    m /= a.length;
    for (let i = 0; i < a.length; i++) m2 += (a[i] - m) ** 2;
    return m2 / a.length;
  };
  return (v(x) + v(y)) / 2;
}

/** Lloyd's k-means with Hamerly's bounds; the result depends only on the points, k and seed. */
export function kmeans(x: Float64Array, y: Float64Array, kWanted: number, seed: number): KMeans {
  const n = x.length;
  const { cx, cy } = seedCentres(x, y, Math.min(kWanted, n), new Rng(seed));
  const k = cx.length;
  const assign = new Int32Array(n), upper = new Float64Array(n), lower = new Float64Array(n);
  const first = new SortedCentres(cx, cy);
  for (let i = 0; i < n; i++) {
    first.scan(x[i], y[i]);
    assign[i] = first.b;
    upper[i] = Math.sqrt(first.d1);
    lower[i] = Math.sqrt(first.d2);
  }
  const sx = new Float64Array(k), sy = new Float64Array(k), cnt = new Int32Array(k);
  const move = new Float64Array(k), half = new Float64Array(k);
  const tol = TOL * meanVariance(x, y);
  let it = 0;
  for (; it < MAX_ITER; it++) {
    sx.fill(0), sy.fill(0), cnt.fill(0);
    for (let i = 0; i < n; i++) (sx[assign[i]] += x[i], sy[assign[i]] += y[i], cnt[assign[i]]++);
    let far = 0, far2 = 0, farC = -1, shift = 0;
    for (let c = 0; c < k; c++) {
      if (cnt[c] === 0) {
        move[c] = 0;
        continue;
      }
      const nx = sx[c] / cnt[c], ny = sy[c] / cnt[c];
      move[c] = Math.sqrt((nx - cx[c]) ** 2 + (ny - cy[c]) ** 2);
      shift += move[c] * move[c];
      cx[c] = nx;
      cy[c] = ny;
      if (move[c] > far) (far2 = far, far = move[c], farC = c);
      else if (move[c] > far2) far2 = move[c];
    }
    const sorted = new SortedCentres(cx, cy);
    for (let c = 0; c < k; c++) (sorted.scan(cx[c], cy[c]), half[c] = Math.sqrt(sorted.d2) / 2);
    let changed = 0;
    for (let i = 0; i < n; i++) {
      const a = assign[i];
      upper[i] += move[a];
      lower[i] -= a === farC ? far2 : far;
      const z = Math.max(lower[i], half[a]);
      if (upper[i] <= z) continue;
      upper[i] = Math.sqrt((x[i] - cx[a]) ** 2 + (y[i] - cy[a]) ** 2);
      if (upper[i] <= z) continue;
      sorted.scan(x[i], y[i]);
      if (sorted.b !== a) (assign[i] = sorted.b, changed++);
      upper[i] = Math.sqrt(sorted.d1);
      lower[i] = Math.sqrt(sorted.d2);
    }
    if (changed === 0 || shift <= tol) break;
  }
  return { assign, cx, cy, iterations: it + 1 };
}

/**
 * Clusters of fewer than `min` points join the nearest cluster (by centre) that has at least `min`;
 * empty clusters vanish and the rest are renumbered in order. Returns the member lists (ascending).
 */
export function mergeSmall(km: KMeans, min: number): Int32Array[] {
  const k = km.cx.length, cnt = new Int32Array(k);
  for (const a of km.assign) cnt[a]++;
  const big: number[] = [];
  for (let c = 0; c < k; c++) if (cnt[c] >= min) big.push(c);
  const target = new Int32Array(k);
  for (let c = 0; c < k; c++) {
    target[c] = c;
    if (cnt[c] >= min || big.length === 0) continue;
    let best = big[0], bd = Infinity;
    for (const o of big) {
      const d = (km.cx[o] - km.cx[c]) ** 2 + (km.cy[o] - km.cy[c]) ** 2;
      if (d < bd) (bd = d, best = o);
    }
    target[c] = best;
  }
  // With no cluster of `min` points at all (a tiny scope), everything forms one region.
  if (big.length === 0) target.fill(km.assign.length ? km.assign[0] : 0);
  const size = new Int32Array(k);
  for (const a of km.assign) size[target[a]]++;
  const id = new Int32Array(k).fill(-1);
  let next = 0;
  for (let c = 0; c < k; c++) if (size[c] > 0) id[c] = next++;
  const members = Array.from({ length: next }, (_, r) => new Int32Array(size[id.indexOf(r)]));
  const fill = new Int32Array(next);
  km.assign.forEach((a, i) => {
    const r = id[target[a]];
    members[r][fill[r]++] = i;
  });
  return members;
}
