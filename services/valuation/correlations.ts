/** Correlation matrices (Pearson, Spearman, Kendall tau-b) of a dataset's numeric columns (spec 2). */
import type { NumericColumn } from "../../core/stats/frame.ts";
import { type Matrices, type Matrix, type Method, METHODS } from "../../core/stats/correlation.ts";
import { correlateOnPool, type Rankings } from "./on_pool.ts";
import { typedBytes } from "../datasets/prepared.ts";
import { loadDatasetFrame, shapeOf, type ValuationDeps } from "./dataset_frame.ts";

/** column → column → coefficient; null where none exists (a constant column, too few complete rows). */
export type NamedMatrix = Record<string, Record<string, number | null>>;

export interface CorrelationInput {
  datasetId: string;
  /** The methods to compute; the others answer null. */
  methods: Record<Method, boolean>;
}

export interface Correlations {
  /** `[rows, columns]` of the whole dataset. */
  shape: [number, number];
  /** Numeric columns used (booleans count as 0/1). */
  featureCount: number;
  /** Each method's matrix, null for a method not asked for. */
  matrices: Record<Method, NamedMatrix | null>;
}

/** The prepared part holding the rankings of a frame's numeric columns (Spearman's and Kendall's sort). */
const RANKINGS = "correlation rankings";

/**
 * Loads the dataset and computes the asked methods over its numeric columns on the worker pool. The
 * columns' rankings are kept with the prepared dataset, so a later Spearman or Kendall sorts nothing.
 */
export async function analyzeCorrelations(
  deps: ValuationDeps,
  input: CorrelationInput,
): Promise<Correlations> {
  const { frame, key } = await loadDatasetFrame(deps, input.datasetId);
  const numeric = frame.columns.filter((col): col is NumericColumn => col.kind === "numeric");
  const methods = METHODS.filter((m) => input.methods[m]);
  const names = numeric.map((col) => col.name);
  const ranked = methods.some((m) => m !== "pearson");
  const kept = ranked ? deps.prepared?.peek<Rankings>(key, RANKINGS) : undefined;
  let computed: Matrices = {};
  if (methods.length) {
    const out = await correlateOnPool(deps.pool, numeric.map((col) => col.values), methods, kept);
    if (ranked && !kept) {
      deps.prepared?.put(key, RANKINGS, { value: out.rankings, bytes: typedBytes(out.rankings) });
    }
    computed = out.matrices;
  }
  const out = (m: Method) => (computed[m] ? named(names, computed[m]) : null);
  return {
    shape: shapeOf(frame),
    featureCount: numeric.length,
    matrices: { pearson: out("pearson"), spearman: out("spearman"), kendall: out("kendall") },
  };
}

/** A k × k matrix as column → column → coefficient, NaN as null. */
function named(names: string[], m: Matrix): NamedMatrix {
  const k = names.length;
  return Object.fromEntries(names.map((a, i) => [
    a,
    Object.fromEntries(names.map((b, j) => [b, Number.isNaN(m[i * k + j]) ? null : m[i * k + j]])),
  ]));
}
