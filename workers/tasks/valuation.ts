/**
 * The valuation's worker tasks: correlations (columns to rank, then pairs, each taken one at a time from
 * a counter the request's workers share) and feature importance (the binned design, then one (model,
 * fold) job per task). Columns, rankings and the design live in SharedArrayBuffers, so each worker reads
 * them without a copy. The caller's side, spreading a request over the pool, is services/valuation/on_pool.ts.
 */
import type { TaskTable } from "../protocol.ts";
import { sharedAlloc, toLocal, toShared } from "../../core/memory.ts";
import {
  type Method,
  pairCoefficients,
  prepareColumn,
  type PreparedColumn,
} from "../../core/stats/correlation.ts";
import type { Ranking } from "../../core/stats/ranks.ts";
import type { Frame } from "../../core/stats/frame.ts";
import { type Design, prepare, type PrepareOptions } from "../../core/learn/prepare.ts";
import { problemOf } from "../../core/learn/compare.ts";
import { type Job, type Problem, runJob } from "../../core/learn/models.ts";

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

/** Entries for workers/tasks.ts. */
export const VALUATION_TASKS = {
  "valuation.correlation_prepare": (
    { columns, methods, rankings, next }: {
      columns: Float64Array[];
      methods: Method[];
      /** Rankings kept from an earlier request on these columns, or null. */
      rankings: (Ranking | null)[] | null;
      next: Int32Array;
    },
  ) => {
    const out: Claimed[] = [];
    for (const index of claim(range(columns.length), next)) {
      const column = prepareColumn(columns[index], methods, sharedAlloc, rankings?.[index] ?? null);
      out.push({ index, column: toShared(column) });
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
} satisfies TaskTable;

/** This worker's copy of the design its last job read (jobs of one request come in a row). */
let local: { id: string; problem: Problem } | null = null;

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
