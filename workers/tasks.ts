/**
 * Every task the worker pool can run: a name and a function of core over plain data, each area's in
 * `tasks/<prefix>.ts` (named as its tasks' names begin). The worker (`worker.ts`) serves exactly this
 * table, and the inline runner (`pool.ts`) runs it in the caller's isolate. Its type is the worker
 * boundary's: `pool.run(name, ...)` takes the task's input and answers its output, as `TaskInput` and
 * `TaskOutput` say. Only task modules are imported here, never a caller, so the pool's types import no
 * service.
 */
import type { TaskInputOf, TaskOutputOf, TaskTable } from "./protocol.ts";
import { SPATIAL_TASKS } from "./tasks/spatial.ts";
import { MAP_TASKS } from "./tasks/maps.ts";
import { MITIGATE_TASKS } from "./tasks/mitigate.ts";
import { ANNOTATE_TASKS } from "./tasks/annotate.ts";
import { VALUATION_TASKS } from "./tasks/valuation.ts";
import { CLEANING_TASKS } from "./tasks/cleaning.ts";
import { DATASET_TASKS } from "./tasks/dataset.ts";
import { WARM_UP_TASKS } from "./tasks/warm_up.ts";
import { TOOLKIT_TASKS } from "./tasks/toolkit.ts";

export const TASKS = {
  ...SPATIAL_TASKS, // "spatial.regions", "spatial.prepare", "spatial.hulls", "spatial.restrict", "spatial.worlds"
  ...MAP_TASKS, // "maps.fair", "maps.distribution", "maps.flips", "maps.threshold_chart"
  ...MITIGATE_TASKS, // "mitigate.relabel", "mitigate.threshold", "mitigate.split", "mitigate.fit"
  ...ANNOTATE_TASKS, // "annotate.run"
  ...VALUATION_TASKS, // "valuation.correlation_*", "valuation.importance_*"
  ...CLEANING_TASKS, // "cleaning.run"
  ...DATASET_TASKS, // "dataset.columns", "dataset.frame": a dataset read in a worker
  ...TOOLKIT_TASKS, // "toolkit.read": a toolkit request's individuals parsed into columns
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
