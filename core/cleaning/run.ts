/**
 * One cleaning job's computation, a pure function of its columns: what the worker pool runs. The job
 * runner loads and sorts the columns; this picks the method of the catalogue and applies it.
 */
import type { Cell, Detection, Filled, Imputation } from "./stats.ts";
import { type Dtype, findMethod, type Task } from "./methods.ts";
import {
  imputeConstant,
  imputeKnn,
  imputeMean,
  imputeMedian,
  imputeMostFrequent,
  type TableColumn,
} from "./impute_tabular.ts";
import { imputeIterative } from "./iterative.ts";
import {
  backwardFill,
  forwardFill,
  imputeRollingMean,
  imputeSeasonal,
  inferPeriod,
  interpolateLinear,
  interpolateSpline,
  interpolateTime,
} from "./impute_series.ts";
import {
  detectEcod,
  detectHbos,
  detectIqrTabular,
  detectKnn,
  detectLof,
  detectZscore,
} from "./detect_tabular.ts";
import { detectIsolationForest } from "./isolation_forest.ts";
import {
  detectEsd,
  detectIqr,
  detectLevelShift,
  detectPersist,
  detectQuantile,
  detectSeasonal,
  detectThreshold,
  detectVolatilityShift,
} from "./detect_series.ts";
import { InvalidInputError } from "../errors.ts";
import { setOwn } from "../data_keys.ts";

export interface CleaningInput {
  task: Task;
  dtype: Dtype;
  method: string;
  params: Record<string, unknown>;
  columns: TableColumn[];
  /** Time series only: ms since the epoch, ascending, one per row of the columns. */
  times?: Float64Array;
}

export type CleaningOutput =
  | ({ task: "impute" } & Imputation)
  | ({ task: "detect"; columns: string[]; columnLabels: Uint8Array[] } & Detection);

// deno-lint-ignore no-explicit-any
type P = Record<string, any>;
type SeriesImpute = (t: Float64Array, v: Float64Array, p: P) => Float64Array;
type SeriesDetect = (t: Float64Array, v: Float64Array, p: P) => Detection;
type TableDetect = (cols: Float64Array[], p: P) => Detection;

const periodOf = (t: Float64Array, given: number | undefined, name: string) => {
  const p = given ?? inferPeriod(t);
  if (!p) {
    throw new InvalidInputError(
      `no regular hourly or daily spacing to infer the cycle from: give params.${name}`,
    );
  }
  return p;
};

const TABLE_IMPUTE: Record<string, (c: TableColumn[], p: P) => Imputation> = {
  mean: (c) => imputeMean(c),
  median: (c) => imputeMedian(c),
  most_frequent: (c) => imputeMostFrequent(c),
  constant: (c, p) => imputeConstant(c, p.fill_value),
  knn: (c, p) => imputeKnn(c, p.n_neighbors, p.standardize),
  iterative: (c, p) => imputeIterative(c, p.max_iter),
};

const SERIES_IMPUTE: Record<string, SeriesImpute> = {
  linear: (_, v) => interpolateLinear(v),
  time: (t, v) => interpolateTime(t, v),
  ffill: (_, v) => forwardFill(v),
  bfill: (_, v) => backwardFill(v),
  spline: (t, v, p) => interpolateSpline(t, v, p.order),
  seasonal: (t, v, p) => imputeSeasonal(t, v, periodOf(t, p.period, "period")),
  rolling_mean: (_, v, p) => imputeRollingMean(v, p.window),
};

const TABLE_DETECT: Record<string, TableDetect> = {
  isolation_forest: (c, p) =>
    detectIsolationForest(c, {
      nEstimators: p.n_estimators,
      maxSamples: p.max_samples,
      contamination: p.contamination,
      seed: p.random_state,
    }),
  lof: (c, p) => detectLof(c, p.n_neighbors, p.contamination, p.standardize),
  knn: (c, p) => detectKnn(c, p.n_neighbors, p.contamination, p.standardize),
  hbos: (c, p) => detectHbos(c, p.n_bins, p.contamination),
  ecod: (c, p) => detectEcod(c, p.contamination),
  zscore: (c, p) => detectZscore(c, p.threshold),
  iqr: (c, p) => detectIqrTabular(c, p.k),
};

const SERIES_DETECT: Record<string, SeriesDetect> = {
  threshold: (_, v, p) => detectThreshold(v, p.low, p.high),
  quantile: (_, v, p) => detectQuantile(v, p.low, p.high),
  iqr: (_, v, p) => detectIqr(v, p.c),
  esd: (_, v, p) => detectEsd(v, p.alpha, p.max_anoms),
  persist: (_, v, p) => detectPersist(v, p.window, p.c),
  level_shift: (_, v, p) => detectLevelShift(v, p.window, p.c),
  volatility_shift: (_, v, p) => detectVolatilityShift(v, p.window, p.c),
  seasonal: (t, v, p) => detectSeasonal(t, v, periodOf(t, p.freq, "freq"), p.c),
};

const numeric = (c: TableColumn): Float64Array => {
  if (c.values instanceof Float64Array) return c.values;
  throw new InvalidInputError(`column '${c.name}' is not numeric`);
};

/** Runs the named method of the catalogue over the columns: the whole computation of one job. */
export function runCleaning(input: CleaningInput): CleaningOutput {
  const spec = findMethod(input.task, input.dtype, input.method);
  if (!spec) {
    throw new InvalidInputError(`unknown method '${input.method}' for ${input.task} on ${input.dtype}`);
  }
  const p: P = spec.params.parse(input.params);
  const cols = input.columns;
  if (input.dtype === "tabular") {
    if (input.task === "impute") return { task: "impute", ...TABLE_IMPUTE[spec.name](cols, p) };
    const det = TABLE_DETECT[spec.name](cols.map(numeric), p);
    return { task: "detect", ...det, columns: cols.map((c) => c.name), columnLabels: [] };
  }
  const times = input.times;
  if (!times) throw new InvalidInputError("a time series job needs its times");
  if (input.task === "impute") {
    const out: Imputation = { filled: [], unfilled: {} };
    for (const c of cols) {
      const before = numeric(c);
      const after = SERIES_IMPUTE[spec.name](times, before, p);
      out.filled.push(...changedCells(c.name, before, after));
      const left = after.reduce((n, v) => n + (Number.isNaN(v) ? 1 : 0), 0);
      if (left) setOwn(out.unfilled, c.name, left);
    }
    out.filled = out.filled.filter((f) => f.rows.length);
    return { task: "impute", ...out };
  }
  const per = cols.map((c) => SERIES_DETECT[spec.name](times, numeric(c), p));
  return {
    task: "detect",
    ...combine(per, times.length),
    columns: cols.map((c) => c.name),
    columnLabels: per.map((d) => d.labels),
  };
}

/** The cells that were missing before and hold a value after. */
function changedCells(column: string, before: Float64Array, after: Float64Array): Filled[] {
  const rows: number[] = [], values: Cell[] = [];
  before.forEach((v, i) => {
    if (Number.isNaN(v) && !Number.isNaN(after[i])) {
      rows.push(i);
      values.push(after[i]);
    }
  });
  return [{ column, rows: Int32Array.from(rows), values }];
}

/** Several columns' detections as one per row: anomalous when any column is, scored by the largest score. */
function combine(per: Detection[], n: number): Detection {
  if (per.length === 1) return per[0];
  const scores = new Float64Array(n).fill(NaN), labels = new Uint8Array(n);
  for (const d of per) {
    for (let i = 0; i < n; i++) {
      if (!Number.isNaN(d.scores[i]) && !(scores[i] >= d.scores[i])) scores[i] = d.scores[i];
      labels[i] |= d.labels[i];
    }
  }
  const thresholds = per.map((d) => d.threshold).filter((t) => !Number.isNaN(t));
  return { scores, labels, threshold: thresholds.length ? Math.min(...thresholds) : NaN };
}
