/**
 * The mitigations' worker tasks: the solver (HiGHS' solve() is synchronous) and the exact searches are
 * seconds of CPU, so they never run on the event loop. "mitigate.relabel" and "mitigate.threshold" report
 * their solver's progress as they run, at most every PROGRESS_MS but for a new phase (`throttled`). The
 * caller's side, with each task's time limit, is services/mitigation/on_pool.ts.
 */
import type { Report } from "../protocol.ts";
import { relabel, type RelabelInput } from "../../core/spatial/mitigate/relabel.ts";
import type { OnProgress } from "../../core/spatial/mitigate/status.ts";
import {
  thresholdFit,
  type ThresholdInput,
  thresholdMitigation,
  thresholdSplit,
} from "../../core/spatial/mitigate/threshold_mitigation.ts";
import { toShared } from "../../core/memory.ts";
import { searchElsewhere } from "../search_elsewhere.ts";

/** The least time between two progress reports of one phase (a new phase is reported at once). */
export const PROGRESS_MS = 200;

/** The solver's progress as `report` posts it: every new phase, else at most every `everyMs`. */
export function throttled(report: Report, everyMs = PROGRESS_MS, now = () => performance.now()): OnProgress {
  let phase = "", last = -Infinity;
  return (p) => {
    const t = now();
    if (p.phase === phase && t - last < everyMs) return;
    phase = p.phase;
    last = t;
    report(p);
  };
}

/** What "mitigate.fit" reads: `thresholdFit`'s input, the split's training positions and the row count. */
export type FitInput = Parameters<typeof thresholdFit>[0] & { train: Int32Array; n: number };

/** Entries for workers/tasks.ts. */
export const MITIGATE_TASKS = {
  // an exact search may take a second core (exact_start.ts), in a worker of its own
  "mitigate.relabel": (p: RelabelInput, report: Report) =>
    relabel(p, throttled(report), p.secondCore === false ? undefined : searchElsewhere),
  "mitigate.threshold": (p: ThresholdInput, report: Report) =>
    thresholdMitigation(p, throttled(report), searchElsewhere),
  "mitigate.split": (p: Parameters<typeof thresholdSplit>[0]) => thresholdSplit(p),
  // shared: the service keeps it for the next threshold of the same split
  "mitigate.fit": (p: FitInput) => toShared(thresholdFit(p, p.train, p.n)),
};
