/**
 * The mitigations as worker tasks: the solver (HiGHS' solve() is synchronous) and the exact searches
 * are seconds of CPU, so they never run on the event loop. The route posts the typed columns, scope and
 * regions, and awaits the result; give the pool a timeout above work_limit (the solver stops itself at
 * work_limit; the pool's timeout is only the backstop for a runaway worker).
 */
import { relabel, type RelabelInput } from "../core/spatial/mitigate/relabel.ts";
import { type ThresholdInput, thresholdMitigation } from "../core/spatial/mitigate/threshold.ts";

/** Entries for workers/tasks.ts. */
export const MITIGATE_TASKS = {
  "mitigate.relabel": (p: RelabelInput) => relabel(p),
  "mitigate.threshold": (p: ThresholdInput) => thresholdMitigation(p),
};
