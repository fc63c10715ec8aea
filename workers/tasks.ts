/**
 * Every task the worker pool can run: a name and a function of core over plain data. Each feature adds
 * its entries here; the worker (`worker.ts`) serves exactly this table, and the inline runner
 * (`pool.ts`) runs it in the caller's isolate. Its type is the worker boundary's: `pool.run(name, ...)`
 * takes the task's input and answers its output, as `TaskInput` and `TaskOutput` say.
 */
import type { Report, TaskInputOf, TaskOutputOf, TaskTable } from "./protocol.ts";
import { SPATIAL_TASKS } from "./spatial_tasks.ts";
import { MAP_TASKS } from "./maps.ts";
import { ANNOTATE_TASKS } from "./annotate.ts";
import { VALUATION_TASKS } from "./valuation_tasks.ts";
import { CLEANING_TASKS } from "./cleaning.ts";
import { DATASET_TASKS } from "./dataset_reads.ts";
import { WARM_UP_TASKS } from "./warm_up.ts";
import { relabel, type RelabelInput } from "../core/spatial/mitigate/relabel.ts";
import {
  thresholdFit,
  type ThresholdInput,
  thresholdMitigation,
  thresholdSplit,
} from "../core/spatial/mitigate/threshold_mitigation.ts";
import { toShared } from "../core/memory.ts";
import { type FitInput, throttled } from "./mitigate.ts";

export const TASKS = {
  ...SPATIAL_TASKS, // "spatial.regions", "spatial.prepare", "spatial.hulls", "spatial.restrict", "spatial.worlds"
  ...MAP_TASKS, // "maps.fair", "maps.distribution", "maps.flips", "maps.threshold_chart"
  // the mitigations, called through workers/mitigate.ts; their solvers report progress
  "mitigate.relabel": (p: RelabelInput, report: Report) => relabel(p, throttled(report)),
  "mitigate.threshold": (p: ThresholdInput, report: Report) => thresholdMitigation(p, throttled(report)),
  "mitigate.split": (p: Parameters<typeof thresholdSplit>[0]) => thresholdSplit(p),
  // shared: the service keeps it for the next threshold of the same split
  "mitigate.fit": (p: FitInput) => toShared(thresholdFit(p, p.train, p.n)),
  ...ANNOTATE_TASKS, // "annotate.run"
  ...VALUATION_TASKS, // "valuation.correlation_*", "valuation.importance_*"
  ...CLEANING_TASKS, // "cleaning.run"
  ...DATASET_TASKS, // "dataset.columns", "dataset.frame": a dataset read in a worker
  ...WARM_UP_TASKS, // "worker.warm": run once by each worker the service starts
} satisfies TaskTable;

/** The table's type: the worker boundary. */
export type Tasks = typeof TASKS;
/** The name of a task the service's pool runs. */
export type TaskName = keyof Tasks;
/** What task `K` takes. */
export type TaskInput<K extends TaskName> = TaskInputOf<Tasks, K>;
/** What task `K` answers. */
export type TaskOutput<K extends TaskName> = TaskOutputOf<Tasks, K>;
