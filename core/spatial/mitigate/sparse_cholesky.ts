/**
 * Sparse Cholesky of a symmetric positive semidefinite matrix of a few thousand rows, for the Newton steps
 * of the zero-gap solve (zero_gap.ts): a minimum-degree order (exact degrees, adjacency as bitsets, which a
 * few thousand nodes afford), the factor's pattern from that elimination, and a left-looking numeric
 * factorisation that reuses the pattern for every matrix with the same (or a smaller) set of entries.
 * A pivot that vanishes marks its row dependent on earlier ones; solves give it 0 (a consistent system
 * loses nothing, the rows are redundant).
 */

/** The order and the factor's pattern: column k of L (new numbering) has rows rows[start[k]..start[k+1]). */
export interface CholeskyPattern {
  n: number;
  /** New position → original row. */
  perm: Int32Array;
  start: Int32Array;
  rows: Int32Array;
}

/** 1-bits of a 32-bit word. */
function popcount(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * Minimum-degree elimination of the graph with an edge wherever `nonzero(i, j)` (i > j): the node of
 * least degree goes next and its neighbours become a clique; what each node's neighbours are when it goes
 * is its column of L.
 */
export function choleskyPattern(n: number, nonzero: (i: number, j: number) => boolean): CholeskyPattern {
  const words = (n + 31) >>> 5, adj = new Uint32Array(n * words), deg = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < i; j++) {
      if (!nonzero(i, j)) continue;
      (adj[i * words + (j >>> 5)] |= 1 << (j & 31), adj[j * words + (i >>> 5)] |= 1 << (i & 31));
      (deg[i]++, deg[j]++);
    }
  }
  const done = new Uint8Array(n), perm = new Int32Array(n), cols: Int32Array[] = [];
  for (let k = 0; k < n; k++) {
    let v = -1;
    for (let u = 0; u < n; u++) if (!done[u] && (v < 0 || deg[u] < deg[v])) v = u;
    (done[v] = 1, perm[k] = v);
    const nb: number[] = [], base = v * words;
    for (let w = 0; w < words; w++) {
      for (let bits = adj[base + w]; bits; bits &= bits - 1) {
        nb.push((w << 5) + 31 - Math.clz32(bits & -bits));
      }
    }
    cols.push(Int32Array.from(nb));
    for (const u of nb) {
      const ub = u * words;
      let d = 0;
      for (let w = 0; w < words; w++) d += popcount(adj[ub + w] |= adj[base + w]);
      const selfOn = (adj[ub + (u >>> 5)] >>> (u & 31)) & 1, vOn = (adj[ub + (v >>> 5)] >>> (v & 31)) & 1;
      adj[ub + (u >>> 5)] &= ~(1 << (u & 31));
      adj[ub + (v >>> 5)] &= ~(1 << (v & 31));
      deg[u] = d - selfOn - vOn;
    }
  }
  const inv = new Int32Array(n);
  perm.forEach((v, k) => (inv[v] = k));
  const start = new Int32Array(n + 1);
  cols.forEach((c, k) => (start[k + 1] = start[k] + c.length));
  const rows = new Int32Array(start[n]);
  cols.forEach((c, k) => rows.set(Int32Array.from(c, (v) => inv[v]).sort(), start[k]));
  return { n, perm, start, rows };
}

/** A numeric factor on a pattern: L's diagonal (0: a dependent row) and its entries below it. */
export interface CholeskyFactor {
  pattern: CholeskyPattern;
  diag: Float64Array;
  values: Float64Array;
}

/**
 * Factors the matrix `entry(i, j)` (original rows, i ≥ j; entries outside the pattern must be 0) as
 * P H Pᵀ = L Lᵀ, left-looking: column j gathers its entries, subtracts the columns k < j with L[j,k] ≠ 0
 * (kept in a list per next row, as CSparse does), and scales by its pivot.
 */
export function choleskyFactor(
  pattern: CholeskyPattern,
  entry: (i: number, j: number) => number,
): CholeskyFactor {
  const { n, perm, start, rows } = pattern;
  const diag = new Float64Array(n), values = new Float64Array(rows.length), x = new Float64Array(n);
  const head = new Int32Array(n).fill(-1), next = new Int32Array(n), ptr = new Int32Array(n);
  for (let j = 0; j < n; j++) {
    const pj = perm[j];
    x[j] = entry(pj, pj);
    const scale = Math.abs(x[j]);
    for (let p = start[j]; p < start[j + 1]; p++) {
      const pi = perm[rows[p]];
      x[rows[p]] = pi > pj ? entry(pi, pj) : entry(pj, pi);
    }
    for (let k = head[j]; k >= 0;) {
      const nextK = next[k], at = ptr[k], ljk = values[at];
      for (let p = at; p < start[k + 1]; p++) x[rows[p]] -= values[p] * ljk;
      if (++ptr[k] < start[k + 1]) (next[k] = head[rows[ptr[k]]], head[rows[ptr[k]]] = k);
      k = nextK;
    }
    const d = x[j];
    x[j] = 0;
    if (!(d > 1e-12 * Math.max(scale, 1e-300))) {
      for (let p = start[j]; p < start[j + 1]; p++) x[rows[p]] = 0; // dependent: an empty column
      continue;
    }
    const l = Math.sqrt(d);
    diag[j] = l;
    for (let p = start[j]; p < start[j + 1]; p++) (values[p] = x[rows[p]] / l, x[rows[p]] = 0);
    if (start[j] < start[j + 1]) {
      (ptr[j] = start[j], next[j] = head[rows[start[j]]], head[rows[start[j]]] = j);
    }
  }
  return { pattern, diag, values };
}

/** Solves H v = b with the factor (original numbering); a dependent row's component is 0. */
export function choleskySolve(f: CholeskyFactor, b: Float64Array): Float64Array {
  const { n, perm, start, rows } = f.pattern, y = new Float64Array(n);
  for (let k = 0; k < n; k++) y[k] = b[perm[k]];
  for (let k = 0; k < n; k++) {
    if (f.diag[k] === 0) {
      y[k] = 0;
      continue;
    }
    const v = (y[k] /= f.diag[k]);
    for (let p = start[k]; p < start[k + 1]; p++) y[rows[p]] -= f.values[p] * v;
  }
  for (let k = n - 1; k >= 0; k--) {
    if (f.diag[k] === 0) continue;
    let s = y[k];
    for (let p = start[k]; p < start[k + 1]; p++) s -= f.values[p] * y[rows[p]];
    y[k] = s / f.diag[k];
  }
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) out[perm[k]] = y[k];
  return out;
}
