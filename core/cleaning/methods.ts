/**
 * The method catalogue of spec 3: every (task, dtype, method) a job may name, with its parameters as a
 * strict zod schema (names and defaults as in scikit-learn, PyOD, pandas and ADTK, so users meet the
 * names they know; unknown keys are refused). Every method also takes `columns`, the fields to process.
 */
import { z } from "zod";

export const JOB_TASKS = ["impute", "detect"] as const;
export const DTYPES = ["tabular", "timeseries"] as const;
export type Task = typeof JOB_TASKS[number];
export type Dtype = typeof DTYPES[number];

/** One method of the catalogue. */
export interface MethodSpec {
  task: Task;
  dtype: Dtype;
  name: string;
  summary: string;
  params: z.ZodObject;
  /** False only for methods that also fill non-numeric columns (most_frequent, constant). */
  numericOnly: boolean;
}

const columns = z.array(z.string().min(1)).min(1).optional();
const int = (min: number, max: number) => z.number().int().min(min).max(max);
const contamination = z.number().gt(0).max(0.5).default(0.1);
const positive = z.number().gt(0);
/** ADTK's window detectors: `window` readings (at least `min`) and `c`, the factor of the spread that counts. */
const windowParams = (min: number, window: number, c: number) => ({
  window: int(min, 10_000).default(window),
  c: positive.default(c),
});
const params = <S extends z.ZodRawShape>(shape: S) => z.object({ columns, ...shape }).strict();

const spec = (
  task: Task,
  dtype: Dtype,
  name: string,
  summary: string,
  shape: z.ZodRawShape | z.ZodObject = {},
  numericOnly = true,
): MethodSpec => ({
  task,
  dtype,
  name,
  summary,
  params: shape instanceof z.ZodObject ? shape : params(shape),
  numericOnly,
});

const thresholdParams = params({ low: z.number().optional(), high: z.number().optional() }).refine(
  (p) => p.low !== undefined || p.high !== undefined,
  { message: "give low, high or both", path: ["low"] },
).refine((p) => p.low === undefined || p.high === undefined || p.low < p.high, {
  message: "low must be below high",
  path: ["low"],
});
const quantileParams = params({
  low: z.number().min(0).max(1).default(0.01),
  high: z.number().min(0).max(1).default(0.99),
})
  .refine((p) => p.low < p.high, { message: "low must be below high", path: ["low"] });

/** Every method, in the order the issue lists them. */
export const METHODS: readonly MethodSpec[] = [
  spec("impute", "tabular", "mean", "column mean (SimpleImputer)"),
  spec("impute", "tabular", "median", "column median (SimpleImputer)"),
  spec(
    "impute",
    "tabular",
    "most_frequent",
    "most frequent value, categories too (SimpleImputer)",
    {},
    false,
  ),
  spec(
    "impute",
    "tabular",
    "constant",
    "a fixed value (SimpleImputer; default 0, or 'missing_value' for text)",
    {
      fill_value: z.union([z.number(), z.string(), z.boolean()]).optional(),
    },
    false,
  ),
  spec("impute", "tabular", "knn", "mean of the k nearest rows by nan-euclidean distance (KNNImputer)", {
    n_neighbors: int(1, 100).default(5),
    standardize: z.boolean().default(true),
  }),
  spec("impute", "tabular", "iterative", "MICE with BayesianRidge (IterativeImputer)", {
    max_iter: int(1, 100).default(10),
  }),
  spec("impute", "timeseries", "linear", "straight lines between neighbouring readings"),
  spec("impute", "timeseries", "time", "straight lines weighted by time"),
  spec("impute", "timeseries", "ffill", "last reading carried forward"),
  spec("impute", "timeseries", "bfill", "next reading carried backward"),
  spec("impute", "timeseries", "spline", "interpolating spline over time (order 3: cubic, not-a-knot)", {
    order: z.union([z.literal(1), z.literal(3)]).default(3),
  }),
  spec(
    "impute",
    "timeseries",
    "seasonal",
    "seasonally adjusted interpolation (period inferred from spacing)",
    {
      period: int(2, 100_000).optional(),
    },
  ),
  spec("impute", "timeseries", "rolling_mean", "mean of a centred window, widened over long gaps", {
    window: int(1, 10_000).default(5),
  }),
  spec("detect", "tabular", "isolation_forest", "isolation forest (PyOD IForest)", {
    contamination,
    n_estimators: int(1, 1000).default(100),
    max_samples: int(2, 100_000).default(256),
    random_state: z.number().int().min(0).default(0),
  }),
  spec("detect", "tabular", "lof", "local outlier factor (PyOD LOF)", {
    contamination,
    n_neighbors: int(1, 500).default(20),
    standardize: z.boolean().default(true),
  }),
  spec("detect", "tabular", "knn", "distance to the k-th nearest row (PyOD KNN, largest)", {
    contamination,
    n_neighbors: int(1, 500).default(5),
    standardize: z.boolean().default(true),
  }),
  spec("detect", "tabular", "hbos", "histogram-based outlier score (PyOD HBOS)", {
    contamination,
    n_bins: int(2, 1000).default(10),
  }),
  spec("detect", "tabular", "ecod", "empirical-CDF outlier detection (PyOD ECOD)", { contamination }),
  spec("detect", "tabular", "zscore", "any cell more than `threshold` standard deviations from its mean", {
    threshold: positive.default(3),
  }),
  spec("detect", "tabular", "iqr", "any cell beyond Tukey's fences, k IQRs outside the quartiles", {
    k: positive.default(1.5),
  }),
  spec(
    "detect",
    "timeseries",
    "threshold",
    "readings below low or above high (ADTK ThresholdAD)",
    thresholdParams,
  ),
  spec(
    "detect",
    "timeseries",
    "quantile",
    "readings beyond the series' own quantiles (ADTK QuantileAD)",
    quantileParams,
  ),
  spec(
    "detect",
    "timeseries",
    "iqr",
    "readings beyond c IQRs outside the quartiles (ADTK InterQuartileRangeAD)",
    {
      c: positive.default(3),
    },
  ),
  spec("detect", "timeseries", "esd", "generalized ESD test (Rosner 1983)", {
    alpha: z.number().gt(0).lt(0.5).default(0.05),
    max_anoms: z.number().gt(0).max(0.5).default(0.1),
  }),
  spec(
    "detect",
    "timeseries",
    "persist",
    "a reading against the median of the window before it (ADTK PersistAD)",
    windowParams(1, 1, 3),
  ),
  spec(
    "detect",
    "timeseries",
    "level_shift",
    "median shift between adjacent windows (ADTK LevelShiftAD)",
    windowParams(1, 5, 6),
  ),
  spec(
    "detect",
    "timeseries",
    "volatility_shift",
    "std shift between adjacent windows (ADTK VolatilityShiftAD)",
    windowParams(2, 10, 6),
  ),
  spec("detect", "timeseries", "seasonal", "residual after the seasonal profile (ADTK SeasonalAD)", {
    freq: int(2, 100_000).optional(),
    c: positive.default(3),
  }),
];

/** The method of that name for the task and dtype, or undefined. */
export function findMethod(task: Task, dtype: Dtype, name: string): MethodSpec | undefined {
  return METHODS.find((m) => m.task === task && m.dtype === dtype && m.name === name);
}

/** The names a request may give for a task and dtype, for error messages that list what is allowed. */
export function methodNames(task: Task, dtype: Dtype): string[] {
  return METHODS.filter((m) => m.task === task && m.dtype === dtype).map((m) => m.name);
}

/** The parameter names a method accepts. */
export function paramNames(m: MethodSpec): string[] {
  return Object.keys(m.params.shape);
}
