/**
 * Correlations and feature importance over the worker pool, using every worker. Columns, rankings
 * and the binned design live in SharedArrayBuffers, so each worker reads them without a copy:
 * for correlations the workers take the columns to rank, then the pairs (the costliest first), one at
 * a time from a shared counter, so they finish together; feature importance prepares the design in
 * one worker, then runs the (model, fold) jobs across all of them (a job depends only on the seed and
 * its own name, so the split never changes the answer).
 */
import type { WorkerPool } from "./pool.ts";
import type { TaskTable } from "./protocol.ts";
import { sharedAlloc, toLocal, toShared } from "../core/memory.ts";
import {
  type Matrices,
  mergeShares,
  type Method,
  pairCoefficients,
  pairOrder,
  prepareColumn,
  type PreparedColumn,
} from "../core/stats/correlation.ts";
import type { Frame } from "../core/stats/frame.ts";
import { type Design, prepare, type PrepareOptions } from "../core/learn/prepare.ts";
import { compareModels, type Comparison, problemOf } from "../core/learn/compare.ts";
import { type Job, type JobResult, type ModelName, type Problem, runJob } from "../core/learn/models.ts";

interface PreparedDesign {
  /** Names this design, so a worker copies it into its own memory once for all its jobs. */
  id: string;
  problem: Problem;
  featureNames: string[];
  dropped: Design["dropped"];
}

/** A column prepared by a worker, with its place among the request's columns. */
interface Claimed {
  index: number;
  column: PreparedColumn;
}

/**
 * The items of `order` this worker takes, one at a time, from a counter all the request's workers
 * share: a worker that is done with one takes the next, so none waits while another has a backlog.
 */
function* claim(order: ArrayLike<number>, next: Int32Array): Generator<number> {
  for (let t = Atomics.add(next, 0, 1); t < order.length; t = Atomics.add(next, 0, 1)) yield order[t];
}

export const VALUATION_TASKS: TaskTable = {
  "valuation.correlation_prepare": (
    { columns, methods, next }: { columns: Float64Array[]; methods: Method[]; next: Int32Array },
  ) => {
    const out: Claimed[] = [];
    for (const index of claim(range(columns.length), next)) {
      out.push({ index, column: toShared(prepareColumn(columns[index], methods, sharedAlloc)) });
    }
    return out;
  },
  "valuation.correlation_pairs": (
    { prepared, methods, order, next }: {
      prepared: PreparedColumn[];
      methods: Method[];
      order: Float64Array;
      next: Int32Array;
    },
  ) => pairCoefficients(prepared, methods, claim(order, next)),
  "valuation.importance_prepare": ({ frame, options }: { frame: Frame; options: PrepareOptions }) => {
    const design = prepare(frame, options);
    const out: PreparedDesign = {
      id: crypto.randomUUID(),
      problem: toShared(problemOf(design, sharedAlloc)),
      featureNames: design.featureNames,
      dropped: design.dropped,
    };
    return out;
  },
  "valuation.importance_job": (
    { id, problem, job, seed }: { id: string; problem: Problem; job: Job; seed: number },
  ) => {
    if (local?.id !== id) local = { id, problem: toLocal(problem) };
    return runJob(local.problem, job, seed);
  },
};

/** This worker's copy of the design its last job read (jobs of one request come in a row). */
let local: { id: string; problem: Problem } | null = null;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** The correlation matrices of `columns` (NaN = gap), both steps spread over every worker. */
export async function correlateOnPool(
  pool: WorkerPool,
  columns: Float64Array[],
  methods: Method[],
): Promise<Matrices> {
  const parts = Math.max(1, Math.min(pool.size, columns.length));
  const counter = () => new Int32Array(new SharedArrayBuffer(4));
  const payload = { columns: toShared(columns), methods, next: counter() };
  const prepared: PreparedColumn[] = new Array(columns.length);
  const claimed = await Promise.all(
    range(parts).map(() => pool.run<Claimed[]>("valuation.correlation_prepare", payload)),
  );
  for (const { index, column } of claimed.flat()) prepared[index] = column;
  const pairs = { prepared, methods, order: pairOrder(prepared), next: counter() };
  const results = await Promise.all(
    range(parts).map(() => pool.run<Matrices>("valuation.correlation_pairs", pairs)),
  );
  return mergeShares(results);
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
  const prep = await pool.run<PreparedDesign>("valuation.importance_prepare", { frame, options });
  const comparison = await compareModels(
    prep.featureNames,
    models,
    options.folds,
    (job) =>
      pool.run<JobResult>("valuation.importance_job", {
        id: prep.id,
        problem: prep.problem,
        job,
        seed: options.seed,
      }),
  );
  return { comparison, featureNames: prep.featureNames, dropped: prep.dropped };
}
