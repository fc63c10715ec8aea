/**
 * Correlation matrices as pandas' `DataFrame.corr` computes them: each pair over the rows where both
 * columns are present, Spearman as Pearson on average ranks (ranked within those rows), Kendall as
 * tau-b. Columns are Float64Arrays with NaN for a missing value; a coefficient that does not exist (a
 * constant column, fewer than two rows) is NaN here and null in JSON.
 *
 * Two steps, so that workers can share them: `prepareColumn` (one radix sort per column) and
 * `pairCoefficients` over some of the pairs, O(n) per pair for Pearson and Spearman and O(n log n)
 * for Kendall. Pairs of gap-free columns reduce to dot products.
 */
import { rankColumn, type Ranking } from "./ranks.ts";
import { type Alloc, localAlloc } from "../memory.ts";
import { centredRanks, spearmanPair, SpearmanScratch } from "./spearman.ts";
import { KendallScratch, kendallTauB } from "./kendall.ts";

export type Method = "pearson" | "spearman" | "kendall";
/** The methods in the order of the response. */
export const METHODS: readonly Method[] = ["pearson", "spearman", "kendall"];

/** A K×K row-major matrix; NaN where no coefficient exists. */
export type Matrix = Float64Array;
export type Matrices = Partial<Record<Method, Matrix>>;

/** Everything the pairs need of one column, computed once (plain typed arrays: workers share them). */
export interface PreparedColumn {
  constant: boolean;
  /** 1 where present; null when the column has no gap. */
  present: Uint8Array | null;
  /** The rows where it is missing, in order; null when it has no gap. */
  gaps: Uint32Array | null;
  /** The values with 0 in the gaps (for branch-free sums). */
  filled: Float64Array;
  /** (x − mean) / ‖x − mean‖ of a gap-free column, for Pearson. */
  z: Float64Array | null;
  /** For Spearman and Kendall. */
  ranking: Ranking | null;
  /** For Spearman: average rank − its mean, 0 in the gaps. */
  centred: Float64Array | null;
}

/**
 * One column's sort, ranks and standardisation, the per-column half of the work, done once. `ranking`:
 * the column's ranking when one is kept from an earlier request (the costliest part: a radix sort).
 */
export function prepareColumn(
  values: Float64Array,
  methods: readonly Method[],
  alloc: Alloc = localAlloc,
  ranking: Ranking | null = null,
): PreparedColumn {
  const n = values.length;
  let gaps = 0;
  let first = NaN;
  let constant = true;
  for (let r = 0; r < n; r++) {
    const v = values[r];
    if (v !== v) gaps++;
    else if (first !== first) first = v;
    else if (v !== first) constant = false;
  }
  const out: PreparedColumn = {
    constant,
    present: null,
    gaps: null,
    filled: values,
    z: null,
    ranking: null,
    centred: null,
  };
  if (constant) return out;
  if (gaps > 0) {
    out.present = new Uint8Array(alloc(n));
    out.gaps = new Uint32Array(alloc(4 * gaps));
    out.filled = new Float64Array(alloc(8 * n));
    for (let r = 0, g = 0; r < n; r++) {
      const v = values[r];
      if (v === v) {
        out.present[r] = 1;
        out.filled[r] = v;
      } else out.gaps[g++] = r;
    }
  } else if (methods.includes("pearson")) out.z = standardise(values, new Float64Array(alloc(8 * n)));
  if (methods.includes("spearman") || methods.includes("kendall")) {
    out.ranking = ranking ?? rankColumn(values, alloc);
  }
  if (methods.includes("spearman")) {
    out.centred = centredRanks(out.ranking!, new Float64Array(alloc(8 * n)));
  }
  return out;
}

/** (x − mean) / ‖x − mean‖ into `z`: the Pearson of two such columns is their dot product. */
function standardise(x: Float64Array, z: Float64Array): Float64Array {
  const n = x.length;
  let sum = 0;
  for (let r = 0; r < n; r++) sum += x[r];
  const mean = sum / n;
  let ss = 0;
  for (let r = 0; r < n; r++) {
    const d = x[r] - mean;
    z[r] = d;
    ss += d * d;
  }
  const norm = Math.sqrt(ss);
  for (let r = 0; r < n; r++) z[r] /= norm;
  return z;
}

/**
 * Pearson of a and b over the rows where both weights are 1 (weights 0/1, a and b finite), two-pass
 * for accuracy and branch-free because a test per row costs more in V8; NaN when a
 * side has no spread there, because then r is undefined.
 */
export function pearsonWeighted(a: Float64Array, wa: Uint8Array, b: Float64Array, wb: Uint8Array): number {
  let n = 0;
  let sa = 0;
  let sb = 0;
  for (let r = 0; r < a.length; r++) {
    const w = wa[r] & wb[r];
    n += w;
    sa += w * a[r];
    sb += w * b[r];
  }
  if (n < 2) return NaN;
  const ma = sa / n;
  const mb = sb / n;
  let saa = 0;
  let sbb = 0;
  let sab = 0;
  for (let r = 0; r < a.length; r++) {
    const w = wa[r] & wb[r];
    const da = (a[r] - ma) * w;
    const db = (b[r] - mb) * w;
    saa += da * da;
    sbb += db * db;
    sab += da * db;
  }
  const divisor = Math.sqrt(saa * sbb);
  return divisor === 0 ? NaN : clamp(sab / divisor);
}

const clamp = (r: number) => Math.min(1, Math.max(-1, r));

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let r = 0; r < a.length; r++) s += a[r] * b[r];
  return s;
}

/**
 * The pairs i < j of the columns that are not constant, each as the number i·k + j (doubles, exact
 * past 2^32), the costliest first: Kendall's trie is deeper and a contingency table bigger the more
 * distinct values a pair has, so workers that take the pairs in this order finish together, the last
 * pairs being the cheapest.
 */
export function pairOrder(cols: PreparedColumn[]): Float64Array {
  const k = cols.length;
  const distinct = cols.map((c) => c.ranking?.distinct ?? 1);
  const order: number[] = [];
  for (let i = 0; i < k; i++) {
    for (let j = i + 1; j < k; j++) if (!cols[i].constant && !cols[j].constant) order.push(i * k + j);
  }
  const cost = (p: number) => distinct[Math.floor(p / k)] * distinct[p % k];
  return Float64Array.from(order.sort((p, q) => cost(q) - cost(p) || p - q));
}

/**
 * The coefficients of `pairs` (numbered as by `pairOrder`; the rest stay NaN, and `mergeShares`
 * joins the parts), the per-pair half of the work, so that several workers can split it.
 */
export function pairCoefficients(
  cols: PreparedColumn[],
  methods: readonly Method[],
  pairs: Iterable<number> = pairOrder(cols),
): Matrices {
  const k = cols.length;
  const n = k ? cols[0].filled.length : 0;
  const ones = new Uint8Array(n).fill(1);
  const scratch = methods.includes("kendall") ? new KendallScratch(n) : null;
  const reranked = methods.includes("spearman") ? new SpearmanScratch(n) : null;
  const out: Matrices = {};
  for (const m of methods) {
    out[m] = new Float64Array(k * k).fill(NaN);
    for (let i = 0; i < k; i++) if (!cols[i].constant) out[m]![i * k + i] = 1;
  }
  for (const pair of pairs) {
    const i = Math.floor(pair / k), j = pair % k;
    const a = cols[i], b = cols[j];
    if (a.constant || b.constant) continue;
    const set = (m: Method, r: number) => {
      out[m]![i * k + j] = r;
      out[m]![j * k + i] = r;
    };
    if (out.pearson) {
      set(
        "pearson",
        a.z && b.z
          ? clamp(dot(a.z, b.z))
          : pearsonWeighted(a.filled, a.present ?? ones, b.filled, b.present ?? ones),
      );
    }
    if (out.spearman) {
      set(
        "spearman",
        spearmanPair({ ...a, ranking: a.ranking!, centred: a.centred! }, {
          ...b,
          ranking: b.ranking!,
          centred: b.centred!,
        }, reranked!),
      );
    }
    if (out.kendall) {
      // Over the rows both have (pandas' pairs).
      set("kendall", kendallTauB({ ...a, ranking: a.ranking! }, { ...b, ranking: b.ranking! }, scratch!));
    }
  }
  return out;
}

/** The requested matrices of `columns` (NaN = missing value) in this thread, for small tables and tests. */
export function correlationMatrices(columns: Float64Array[], methods: readonly Method[]): Matrices {
  return pairCoefficients(columns.map((c) => prepareColumn(c, methods)), methods);
}

/** Joins the matrices of several shares of the same request into whole matrices. */
export function mergeShares(parts: Matrices[]): Matrices {
  const out: Matrices = {};
  for (const method of METHODS) {
    const mats = parts.map((p) => p[method]).filter((m): m is Matrix => m !== undefined);
    if (!mats.length) continue;
    const merged = mats[0].slice();
    for (const m of mats.slice(1)) {
      for (let t = 0; t < m.length; t++) if (merged[t] !== merged[t]) merged[t] = m[t];
    }
    out[method] = merged;
  }
  return out;
}
