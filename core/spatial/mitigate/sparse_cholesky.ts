/**
 * Sparse Cholesky of a symmetric positive semidefinite matrix of a few thousand rows, for the Newton steps
 * of the zero-gap solve (zero_gap.ts) and of the interior point (interior_point.ts): a minimum-degree order (exact degrees, adjacency as bitsets, which a
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

/** The graph of H's off-diagonal entries as bitset rows (n words each), for minimumDegree. */
function emptyGraph(n: number): { words: number; adj: Uint32Array } {
  const words = (n + 31) >>> 5;
  return { words, adj: new Uint32Array(n * words) };
}

/** Adds the edge i–j (i ≠ j) to the graph. */
function link(g: { words: number; adj: Uint32Array }, i: number, j: number): void {
  (g.adj[i * g.words + (j >>> 5)] |= 1 << (j & 31), g.adj[j * g.words + (i >>> 5)] |= 1 << (i & 31));
}

/** The pattern of H with an entry wherever `nonzero(i, j)` (i > j), by minimumDegree. */
export function choleskyPattern(n: number, nonzero: (i: number, j: number) => boolean): CholeskyPattern {
  const g = emptyGraph(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) if (nonzero(i, j)) link(g, i, j);
  return minimumDegree(n, g.adj);
}

/**
 * The pattern of A Aᵀ for A in CSC over n rows (column `skip` left out): an edge between every two rows
 * of a column, without asking about each of the n² pairs.
 */
export function choleskyPatternOfColumns(
  n: number,
  start: Int32Array,
  index: Int32Array,
  skip = -1,
): CholeskyPattern {
  const g = emptyGraph(n);
  for (let j = 0; j + 1 < start.length; j++) {
    if (j === skip) continue;
    for (let p = start[j]; p < start[j + 1]; p++) {
      for (let q = start[j]; q < p; q++) if (index[p] !== index[q]) link(g, index[p], index[q]);
    }
  }
  return minimumDegree(n, g.adj);
}

/**
 * Minimum-degree elimination of the graph (bitset rows): the node of least degree goes next and its
 * neighbours become a clique; what each node's neighbours are when it goes is its column of L.
 */
function minimumDegree(n: number, adj: Uint32Array): CholeskyPattern {
  const words = (n + 31) >>> 5, deg = new Int32Array(n);
  for (let i = 0; i < n; i++) for (let w = 0; w < words; w++) deg[i] += popcount(adj[i * words + w]);
  const done = new Uint8Array(n), perm = new Int32Array(n), cols: Int32Array[] = [], live: number[] = [];
  for (let k = 0; k < n; k++) {
    let v = -1;
    for (let u = 0; u < n; u++) if (!done[u] && (v < 0 || deg[u] < deg[v])) v = u;
    if (deg[v] === n - k - 1) {
      // the nodes left form a clique: they go in ascending order (as the ties would take them), each
      // with the ones after it as its column
      const left = Int32Array.from({ length: n }, (_, u) => u).filter((u) => !done[u]);
      left.forEach((u, at) => (perm[k + at] = u, cols.push(left.subarray(at + 1))));
      break;
    }
    (done[v] = 1, perm[k] = v);
    const nb: number[] = [], base = v * words;
    live.length = 0;
    for (let w = 0; w < words; w++) {
      if (adj[base + w]) live.push(w);
      for (let bits = adj[base + w]; bits; bits &= bits - 1) {
        nb.push((w << 5) + 31 - Math.clz32(bits & -bits));
      }
    }
    cols.push(Int32Array.from(nb));
    // each neighbour gains v's other neighbours (only the words where v has any) and loses v and itself
    for (const u of nb) {
      const ub = u * words;
      let added = 0;
      for (const w of live) (added += popcount(adj[base + w] & ~adj[ub + w]), adj[ub + w] |= adj[base + w]);
      adj[ub + (u >>> 5)] &= ~(1 << (u & 31));
      adj[ub + (v >>> 5)] &= ~(1 << (v & 31));
      deg[u] += added - 2;
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
 * P H Pᵀ = L Lᵀ (choleskyFactorLaid on the entries gathered into L's layout).
 */
export function choleskyFactor(
  pattern: CholeskyPattern,
  entry: (i: number, j: number) => number,
): CholeskyFactor {
  const { n, perm, start, rows } = pattern, laid = new Float64Array(n + rows.length);
  for (let j = 0; j < n; j++) {
    const pj = perm[j];
    laid[j] = entry(pj, pj);
    for (let p = start[j]; p < start[j + 1]; p++) {
      const pi = perm[rows[p]];
      laid[n + p] = pi > pj ? entry(pi, pj) : entry(pj, pi);
    }
  }
  return choleskyFactorLaid(pattern, laid);
}

/**
 * Where entry (i, j) of the matrix (original rows) sits in L's layout: `laid[k]` is the diagonal of L's
 * column k, `laid[n + p]` the entry at pattern position p; -1 when the pattern has no such entry. A
 * matrix assembled straight into this layout (the interior point's normal matrix, summed afresh every
 * step) skips the gather of choleskyFactor.
 */
export function laidIndex(pattern: CholeskyPattern, inv: Int32Array, i: number, j: number): number {
  let a = inv[i], b = inv[j];
  if (a === b) return a;
  if (a < b) [a, b] = [b, a];
  let lo = pattern.start[b], hi = pattern.start[b + 1] - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1, r = pattern.rows[mid];
    if (r === a) return pattern.n + mid;
    r < a ? (lo = mid + 1) : (hi = mid - 1);
  }
  return -1;
}

/**
 * Factors a matrix given in L's layout (laidIndex) as P H Pᵀ = L Lᵀ, left-looking: column j takes its
 * entries, subtracts the columns k < j with L[j,k] ≠ 0 (kept in a list per next row, as CSparse does),
 * and scales by its pivot.
 */
export function choleskyFactorLaid(pattern: CholeskyPattern, laid: Float64Array): CholeskyFactor {
  const { n, start, rows } = pattern;
  const diag = new Float64Array(n), values = new Float64Array(rows.length), x = new Float64Array(n);
  const head = new Int32Array(n).fill(-1), next = new Int32Array(n), ptr = new Int32Array(n);
  for (let j = 0; j < n; j++) {
    x[j] = laid[j];
    const scale = Math.abs(x[j]);
    for (let p = start[j]; p < start[j + 1]; p++) x[rows[p]] = laid[n + p];
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
