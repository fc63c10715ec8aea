/**
 * Tabular imputation as scikit-learn's SimpleImputer and KNNImputer do it, over typed columns.
 * Numeric columns are Float64Array (NaN = missing); other columns are cell arrays (null = missing).
 */
import { type Cell, type Imputation, mean, median, missingRows, rowMajor, standardize } from "./stats.ts";
import { KdTree, Neighbors } from "./kd_tree.ts";
import { setOwn } from "../data_keys.ts";

/** A named column: numbers for numeric methods, raw cells for most_frequent and constant. */
export interface TableColumn {
  name: string;
  values: Float64Array | Cell[];
}

const isNumeric = (v: Float64Array | Cell[]): v is Float64Array => v instanceof Float64Array;

/** One value for every missing cell of each numeric column (mean, median): what SimpleImputer does. */
function fillEach(columns: TableColumn[], stat: (v: Float64Array) => number): Imputation {
  const out: Imputation = { filled: [], unfilled: {} };
  for (const c of columns) {
    if (!isNumeric(c.values)) throw new TypeError(`column '${c.name}' is not numeric`);
    const rows = missingRows(c.values);
    if (!rows.length) continue;
    const v = stat(c.values);
    if (Number.isNaN(v)) setOwn(out.unfilled, c.name, rows.length); // sklearn drops an all-missing column
    else out.filled.push({ column: c.name, rows, values: new Array(rows.length).fill(v) });
  }
  return out;
}

/** Mean imputation: unbiased for the column mean, shrinks its variance. */
export function imputeMean(columns: TableColumn[]): Imputation {
  return fillEach(columns, mean);
}

/** Median imputation: robust to the outliers a mean would carry into the gaps. */
export function imputeMedian(columns: TableColumn[]): Imputation {
  return fillEach(columns, median);
}

const missingCell = (v: Cell | undefined) => v === null || v === undefined || Number.isNaN(v);

/** Missing cells of any column as row positions. */
function missingOf(values: Float64Array | Cell[]): Int32Array {
  if (isNumeric(values)) return missingRows(values);
  const rows: number[] = [];
  values.forEach((v, i) => missingCell(v) && rows.push(i));
  return Int32Array.from(rows);
}

/** Compares cells as sklearn's mode ties resolve: numbers before strings, each ascending. */
function cellOrder(a: Cell, b: Cell): number {
  const ta = typeof a, tb = typeof b;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return (a as number | string) < (b as number | string) ? -1 : (a === b ? 0 : 1);
}

/** The most frequent value of each column, ties to the smallest (sklearn); works on categories too. */
export function imputeMostFrequent(columns: TableColumn[]): Imputation {
  const out: Imputation = { filled: [], unfilled: {} };
  for (const c of columns) {
    const rows = missingOf(c.values);
    if (!rows.length) continue;
    const counts = new Map<Cell, number>();
    for (const v of c.values as Iterable<Cell>) if (!missingCell(v)) counts.set(v, (counts.get(v) ?? 0) + 1);
    let best: Cell | undefined, bestN = 0;
    for (const [v, n] of counts) {
      if (n > bestN || (n === bestN && cellOrder(v, best!) < 0)) [best, bestN] = [v, n];
    }
    if (best === undefined) setOwn(out.unfilled, c.name, rows.length);
    else out.filled.push({ column: c.name, rows, values: new Array(rows.length).fill(best) });
  }
  return out;
}

/** A fixed value in every gap; sklearn's defaults are 0 for numbers and "missing_value" for text. */
export function imputeConstant(columns: TableColumn[], fillValue?: Cell): Imputation {
  const out: Imputation = { filled: [], unfilled: {} };
  for (const c of columns) {
    const rows = missingOf(c.values);
    if (!rows.length) continue;
    const v = fillValue ?? (isNumeric(c.values) ? 0 : "missing_value");
    if (isNumeric(c.values) && typeof v !== "number") {
      throw new TypeError(`fill_value must be a number for numeric column '${c.name}'`);
    }
    out.filled.push({ column: c.name, rows, values: new Array(rows.length).fill(v) });
  }
  return out;
}

/** Rows sharing one pattern of missing columns: searched together over the columns they all have. */
interface DonorGroup {
  missing: number[];
  rows: Int32Array;
  /** A k-d tree when the group is large enough to pay for one; small groups are scanned. */
  tree: KdTree | null;
  found: Neighbors;
}

/** Groups every row by its pattern of missing columns (the complete rows form one group). */
function donorGroups(X: Float64Array, d: number, n: number, k: number): DonorGroup[] {
  const byPattern = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    let key = "";
    for (let j = 0; j < d; j++) if (Number.isNaN(X[i * d + j])) key += `${j},`;
    const list = byPattern.get(key);
    if (list) list.push(i);
    else byPattern.set(key, [i]);
  }
  return [...byPattern].map(([key, list]) => {
    const rows = Int32Array.from(list);
    return {
      missing: key.split(",").filter(Boolean).map(Number),
      rows,
      tree: rows.length >= 64 ? new KdTree(X, d, rows) : null,
      found: new Neighbors(k),
    };
  });
}

/**
 * KNNImputer: each missing cell gets the mean of that column over the k nearest rows that have it, by
 * sklearn's nan_euclidean distance (coordinates present in both rows, scaled up by d / present). Exact
 * and fast: donors are grouped by their pattern of missing columns, so within a group the scale factor
 * is one constant and a k-d tree over the shared columns answers; the groups' answers are merged per
 * column. `standardize` z-scores the columns for the distance only (filled values keep their units).
 */
export function imputeKnn(columns: TableColumn[], k = 5, standardizeColumns = true): Imputation {
  const raw = columns.map((c) => {
    if (!isNumeric(c.values)) throw new TypeError(`column '${c.name}' is not numeric`);
    return c.values;
  });
  const d = raw.length, n = d ? raw[0].length : 0;
  const X = rowMajor(standardizeColumns ? standardize(raw) : raw);
  const groups = donorGroups(X, d, n, k);
  const best = new Neighbors(k);
  const q = new Float64Array(d);
  const filled: { rows: number[]; values: number[] }[] = raw.map(() => ({ rows: [], values: [] }));
  const fallback = raw.map(mean);

  for (const own of groups) {
    if (!own.missing.length) continue;
    for (const r of own.rows) {
      const usable = groups.filter((g) => searchGroup(X, d, r, own.missing, g, q));
      for (const j of own.missing) {
        best.reset();
        for (const g of usable) {
          if (g.missing.includes(j)) continue;
          for (let t = 0; t < g.found.count; t++) best.offer(g.found.ids[t], g.found.dist2[t]);
        }
        let s = 0;
        for (let t = 0; t < best.count; t++) s += raw[j][best.ids[t]];
        const v = best.count ? s / best.count : fallback[j];
        if (Number.isNaN(v)) continue;
        filled[j].rows.push(r);
        filled[j].values.push(v);
      }
    }
  }
  return collect(columns, raw, filled);
}

/**
 * The k nearest donors of row r within one group, by nan_euclidean distance, into `g.found`; false when
 * the group cannot help (it lacks every column r has, or it is r's own pattern, whose rows lack the very
 * columns r needs).
 */
function searchGroup(
  X: Float64Array,
  d: number,
  r: number,
  rMissing: number[],
  g: DonorGroup,
  q: Float64Array,
) {
  if (g.missing.length && g.missing.join() === rMissing.join()) return false;
  for (let j = 0; j < d; j++) q[j] = X[r * d + j];
  for (const j of g.missing) q[j] = NaN;
  let common = 0;
  for (let j = 0; j < d; j++) if (!Number.isNaN(q[j])) common++;
  if (!common) return false;
  const w = d / common;
  g.found.reset();
  if (g.tree) g.tree.query(q, g.found);
  else {
    for (const i of g.rows) {
      let s = 0;
      for (let j = 0; j < d; j++) if (!Number.isNaN(q[j])) s += (q[j] - X[i * d + j]) ** 2;
      g.found.offer(i, s);
    }
  }
  for (let t = 0; t < g.found.count; t++) g.found.dist2[t] *= w;
  return true;
}

/** Turns per-column fills into the Imputation shape, counting cells nothing could fill. */
export function collect(
  columns: TableColumn[],
  raw: Float64Array[],
  filled: { rows: number[]; values: number[] }[],
): Imputation {
  const out: Imputation = { filled: [], unfilled: {} };
  columns.forEach((c, j) => {
    const missing = missingRows(raw[j]).length;
    if (filled[j].rows.length) {
      out.filled.push({ column: c.name, rows: Int32Array.from(filled[j].rows), values: filled[j].values });
    }
    if (missing > filled[j].rows.length) setOwn(out.unfilled, c.name, missing - filled[j].rows.length);
  });
  return out;
}
