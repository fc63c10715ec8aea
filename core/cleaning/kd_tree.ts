/**
 * Exact k-nearest-neighbour search over row-major points: a k-d tree (median splits on the widest
 * dimension, incremental distance bounds after Arya & Mount). Brute force over 100,000 rows is 10^10
 * operations for the KNN imputer; the tree makes it a few hundred per query on data of low intrinsic
 * dimension. A query may leave dimensions out (NaN): they count zero and never prune, which is what
 * sklearn's nan_euclidean distance needs against complete rows.
 */

const LEAF = 16;

/** The k best found so far, ascending by squared distance. */
export class Neighbors {
  readonly ids: Int32Array;
  readonly dist2: Float64Array;
  count = 0;
  constructor(readonly k: number) {
    this.ids = new Int32Array(k);
    this.dist2 = new Float64Array(k);
  }

  /** The distance a candidate must beat to enter. */
  get worst(): number {
    return this.count < this.k ? Infinity : this.dist2[this.k - 1];
  }

  /** Inserts in order when it beats the worst; ties keep the earlier arrival (lower id in a scan). */
  offer(id: number, d2: number): void {
    if (d2 >= this.worst) return;
    let i = Math.min(this.count, this.k - 1);
    while (i > 0 && this.dist2[i - 1] > d2) {
      this.dist2[i] = this.dist2[i - 1];
      this.ids[i] = this.ids[i - 1];
      i--;
    }
    this.dist2[i] = d2;
    this.ids[i] = id;
    if (this.count < this.k) this.count++;
  }

  reset(): void {
    this.count = 0;
  }
}

/** A k-d tree over a subset of the rows of an n × d row-major matrix. */
export class KdTree {
  private readonly perm: Int32Array;
  private lo: number[] = [];
  private hi: number[] = [];
  private dim: number[] = [];
  private split: number[] = [];
  private left: number[] = [];
  private right: number[] = [];
  private readonly off: Float64Array;
  /** The points again in tree order, so a leaf's points sit side by side in memory. */
  private readonly pts: Float64Array;
  /** The query's present dimensions, so the inner loop does not test for NaN. */
  private readonly active: Int32Array;
  private nActive = 0;

  constructor(private readonly data: Float64Array, private readonly d: number, ids: Int32Array) {
    this.perm = ids.slice();
    this.off = new Float64Array(d);
    this.active = new Int32Array(d);
    if (this.perm.length) this.build(0, this.perm.length);
    this.pts = new Float64Array(this.perm.length * d);
    this.perm.forEach((id, i) => this.pts.set(data.subarray(id * d, id * d + d), i * d));
  }

  get size(): number {
    return this.perm.length;
  }

  /** Fills `out` with the nearest points to q (NaN dimensions ignored), never returning `skip`. */
  query(q: Float64Array, out: Neighbors, skip = -1): void {
    out.reset();
    if (!this.perm.length) return;
    this.off.fill(0);
    this.nActive = 0;
    for (let j = 0; j < this.d; j++) if (!Number.isNaN(q[j])) this.active[this.nActive++] = j;
    this.search(0, q, out, skip, 0);
  }

  private build(lo: number, hi: number): number {
    const node = this.lo.length;
    this.lo.push(lo);
    this.hi.push(hi);
    this.dim.push(-1);
    this.split.push(0);
    this.left.push(-1);
    this.right.push(-1);
    if (hi - lo <= LEAF) return node;
    const dim = this.widest(lo, hi);
    if (dim < 0) return node; // every point equal: a leaf, however large
    const mid = (lo + hi) >> 1;
    this.select(lo, hi - 1, mid, dim);
    this.dim[node] = dim;
    this.split[node] = this.data[this.perm[mid] * this.d + dim];
    this.left[node] = this.build(lo, mid);
    this.right[node] = this.build(mid, hi);
    return node;
  }

  /** The dimension of largest spread over perm[lo, hi), or -1 when all points coincide. */
  private widest(lo: number, hi: number): number {
    let best = -1, spread = 0;
    for (let j = 0; j < this.d; j++) {
      let mn = Infinity, mx = -Infinity;
      for (let i = lo; i < hi; i++) {
        const v = this.data[this.perm[i] * this.d + j];
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      if (mx - mn > spread) [best, spread] = [j, mx - mn];
    }
    return best;
  }

  /** Quickselect: perm[k] gets the point of rank k on `dim` within perm[lo..hi]. */
  private select(lo: number, hi: number, k: number, dim: number): void {
    const { perm, data, d } = this;
    const key = (i: number) => data[perm[i] * d + dim];
    while (hi > lo) {
      const pivot = key((lo + hi) >> 1);
      let i = lo, j = hi;
      while (i <= j) {
        while (key(i) < pivot) i++;
        while (key(j) > pivot) j--;
        if (i <= j) {
          const t = perm[i];
          perm[i] = perm[j];
          perm[j] = t;
          i++;
          j--;
        }
      }
      if (k <= j) hi = j;
      else if (k >= i) lo = i;
      else return;
    }
  }

  private search(node: number, q: Float64Array, out: Neighbors, skip: number, rd: number): void {
    const dim = this.dim[node];
    if (dim < 0) return this.scan(node, q, out, skip);
    const qv = q[dim];
    if (Number.isNaN(qv)) {
      this.search(this.left[node], q, out, skip, rd);
      this.search(this.right[node], q, out, skip, rd);
      return;
    }
    const diff = qv - this.split[node];
    const [near, far] = diff < 0 ? [this.left[node], this.right[node]] : [this.right[node], this.left[node]];
    this.search(near, q, out, skip, rd);
    const old = this.off[dim];
    const farRd = rd - old * old + diff * diff;
    if (farRd < out.worst) {
      this.off[dim] = diff;
      this.search(far, q, out, skip, farRd);
      this.off[dim] = old;
    }
  }

  /** Checks a leaf's points, abandoning each as soon as its partial distance cannot enter. */
  private scan(node: number, q: Float64Array, out: Neighbors, skip: number): void {
    const { pts, d, perm, active, nActive } = this;
    let worst = out.worst;
    for (let i = this.lo[node]; i < this.hi[node]; i++) {
      if (perm[i] === skip) continue;
      const base = i * d;
      let s = 0;
      for (let t = 0; t < nActive && s < worst; t++) {
        const j = active[t];
        const diff = q[j] - pts[base + j];
        s += diff * diff;
      }
      if (s < worst) {
        out.offer(perm[i], s);
        worst = out.worst;
      }
    }
  }
}

/** Distances (not squared) to the k nearest other points of every row: the base of LOF and KNN detection. */
export function allKnn(data: Float64Array, d: number, k: number): { ids: Int32Array; dist: Float64Array } {
  const n = d ? data.length / d : 0;
  const tree = new KdTree(data, d, Int32Array.from({ length: n }, (_, i) => i));
  const kk = Math.max(0, Math.min(k, n - 1));
  const ids = new Int32Array(n * kk);
  const dist = new Float64Array(n * kk);
  if (kk === 0) return { ids, dist };
  const nb = new Neighbors(kk);
  for (let i = 0; i < n; i++) {
    tree.query(data.subarray(i * d, i * d + d), nb, i);
    for (let j = 0; j < kk; j++) {
      ids[i * kk + j] = nb.ids[j];
      dist[i * kk + j] = Math.sqrt(nb.dist2[j]);
    }
  }
  return { ids, dist };
}
