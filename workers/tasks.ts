/**
 * Every task the worker pool can run: a name and a function of core over plain data. Each feature adds
 * its entries here; the worker (`worker.ts`) serves exactly this table.
 */
import type { TaskTable } from "./protocol.ts";
import { SPATIAL_TASKS } from "./spatial.ts";
import { MAP_TASKS } from "./maps.ts";
import { MITIGATE_TASKS } from "./mitigate.ts";
import { ANNOTATE_TASKS } from "./annotate.ts";
import { VALUATION_TASKS } from "./valuation.ts";
import { CLEANING_TASKS } from "./cleaning.ts";

export const TASKS: TaskTable = {
  ...SPATIAL_TASKS, // "spatial.regions", "spatial.prepare", "spatial.worlds"
  ...MAP_TASKS, // "maps.audit", "maps.flips"
  ...MITIGATE_TASKS, // "mitigate.relabel", "mitigate.threshold"
  ...ANNOTATE_TASKS, // "annotate.run"
  ...VALUATION_TASKS, // "valuation.correlation_*", "valuation.importance_*"
  ...CLEANING_TASKS, // "cleaning.run"
};
