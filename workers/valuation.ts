/**
 * Correlations and feature importance over the worker pool, using every worker. Columns, rankings
 * and the binned design live in SharedArrayBuffers, so each worker reads them without a copy:
 * correlations rank the columns in turn across the workers, then split the pairs; feature importance
 * prepares the design in one worker, then runs the (model, fold) jobs across all of them (a job
 * depends only on the seed and its own name, so the split never changes the answer).
 */
import type { WorkerPool } from "./pool.ts";
import type { TaskTable } from "./protocol.ts";
import { sharedAlloc, toLocal, toShared } from "../core/memory.ts";
import {
  type Matrices,
  mergeShares,
  type Method,
  pairCoefficients,
  type PairShare,
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

export const VALUATION_TASKS: TaskTable = {
  "valuation.correlation_prepare": ({ columns, methods }: { columns: Float64Array[]; methods: Method[] }) =>
    toShared(columns.map((c) => prepareColumn(c, methods, sharedAlloc))),
  "valuation.correlation_pairs": (
    { prepared, methods, share }: { prepared: PreparedColumn[]; methods: Method[]; share: PairShare },
  ) => pairCoefficients(prepared, methods, share),
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
  const shared = toShared(columns);
  const prepared: PreparedColumn[] = new Array(columns.length);
  await Promise.all(
    range(parts).map(async (part) => {
      const mine = range(columns.length).filter((i) => i % parts === part);
      const out = await pool.run<PreparedColumn[]>("valuation.correlation_prepare", {
        columns: mine.map((i) => shared[i]),
        methods,
      });
      mine.forEach((i, k) => (prepared[i] = out[k]));
    }),
  );
  const results = await Promise.all(
    range(parts).map((part) =>
      pool.run<Matrices>("valuation.correlation_pairs", { prepared, methods, share: { part, parts } })
    ),
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
