/**
 * Correlations and feature importance over the worker pool, using every worker. Columns, rankings
 * and the binned design live in SharedArrayBuffers, so each worker reads them without a copy:
 * for correlations the workers take the columns to rank, then the pairs (the costliest first), one at
 * a time from a shared counter, so they finish together; feature importance prepares the design in
 * one worker, then runs the (model, fold) jobs across all of them (a job depends only on the seed and
 * its own name, so the split never changes the answer). The tasks are in workers/tasks/valuation.ts.
 */
import type { WorkerPool } from "../../workers/pool.ts";
import { toShared } from "../../core/memory.ts";
import {
  type Matrices,
  mergeShares,
  type Method,
  pairOrder,
  type PreparedColumn,
} from "../../core/stats/correlation.ts";
import type { Ranking } from "../../core/stats/ranks.ts";
import type { Frame } from "../../core/stats/frame.ts";
import type { Design, PrepareOptions } from "../../core/learn/prepare.ts";
import { compareModels, type Comparison } from "../../core/learn/compare.ts";
import type { ModelName } from "../../core/learn/models.ts";

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The columns' rankings (null: a constant column, or none made), in shared memory: kept between requests. */
export type Rankings = (Ranking | null)[];

/** The matrices, and the rankings they were computed from (for a later request on the same columns). */
export interface Correlated {
  matrices: Matrices;
  rankings: Rankings;
}

/**
 * The correlation matrices of `columns` (NaN = gap), both steps spread over every worker. `kept`: the
 * columns' rankings from an earlier request on the very same columns, so no column is sorted again.
 */
export async function correlateOnPool(
  pool: WorkerPool,
  columns: Float64Array[],
  methods: Method[],
  kept?: Rankings,
): Promise<Correlated> {
  const parts = Math.max(1, Math.min(pool.size, columns.length));
  const counter = () => new Int32Array(new SharedArrayBuffer(4));
  const payload = { columns: toShared(columns), methods, rankings: kept ?? null, next: counter() };
  const prepared: PreparedColumn[] = new Array(columns.length);
  const claimed = await Promise.all(
    range(parts).map(() => pool.run("valuation.correlation_prepare", payload)),
  );
  for (const { index, column } of claimed.flat()) prepared[index] = column;
  const pairs = { prepared, methods, order: pairOrder(prepared), next: counter() };
  const results = await Promise.all(
    range(parts).map(() => pool.run("valuation.correlation_pairs", pairs)),
  );
  return { matrices: mergeShares(results), rankings: prepared.map((c) => c.ranking) };
}

export interface ImportanceRun {
  comparison: Comparison;
  featureNames: string[];
  dropped: Design["dropped"];
}

/** Prepares the design in a worker, then cross-validates every (model, fold) across the pool. */
export async function featureImportanceOnPool(
  pool: WorkerPool,
  frame: Frame,
  options: PrepareOptions,
  models: readonly ModelName[],
): Promise<ImportanceRun> {
  const prep = await pool.run("valuation.importance_prepare", { frame, options });
  const comparison = await compareModels(
    prep.featureNames,
    models,
    options.folds,
    (job) =>
      pool.run("valuation.importance_job", {
        id: prep.id,
        problem: prep.problem,
        job,
        seed: options.seed,
      }),
  );
  return { comparison, featureNames: prep.featureNames, dropped: prep.dropped };
}
