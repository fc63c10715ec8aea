/**
 * The mitigations over the worker pool (tasks "mitigate.relabel", "mitigate.threshold" and the
 * threshold's "mitigate.split" and "mitigate.fit" of workers/tasks.ts): the solver (HiGHS' solve() is
 * synchronous) and the exact searches are seconds of CPU, so they never run on the event loop. Callers use
 * `mitigateRelabel(pool, input)`, `thresholdParts(pool, input)`, `thresholdFitOf(pool, input)` and
 * `mitigateThreshold(pool, input)`: the pool copies the inputs (it transfers only when asked), so the
 * caller keeps its columns for the audits after; the pool's timeout sits above work_limit (the solver
 * stops itself at work_limit; the timeout only catches a runaway worker).
 */
import type { WorkerPool } from "./pool.ts";
import type { RelabelInput, RelabelResult } from "../core/spatial/mitigate/relabel.ts";
import type {
  ThresholdFit,
  thresholdFit,
  ThresholdInput,
  ThresholdResult,
  thresholdSplit,
} from "../core/spatial/mitigate/threshold_mitigation.ts";
import type { TrainTest } from "../core/spatial/mitigate/train_test_split.ts";

/** Seconds the pool waits beyond work_limit (problem building, flips, metrics at a million individuals). */
const MARGIN_MS = 120_000;

const timeout = (workLimitSeconds: number) => ({ timeoutMs: Math.ceil(workLimitSeconds * 1000) + MARGIN_MS });

/** The relabel mitigation of a request, in a worker of `pool`. */
export function mitigateRelabel(pool: WorkerPool, input: RelabelInput): Promise<RelabelResult> {
  return pool.run("mitigate.relabel", input, timeout(input.workLimitSeconds));
}

/** The train/test split a threshold mitigation of these settings makes, in a worker of `pool`. */
export function thresholdParts(
  pool: WorkerPool,
  input: Parameters<typeof thresholdSplit>[0],
): Promise<TrainTest> {
  return pool.run("mitigate.split", input);
}

/** What "mitigate.fit" reads: `thresholdFit`'s input, the split's training positions and the row count. */
export type FitInput = Parameters<typeof thresholdFit>[0] & { train: Int32Array; n: number };

/** The training part's fit of a split (`thresholdFit`), in shared memory, in a worker of `pool`. */
export function thresholdFitOf(pool: WorkerPool, input: FitInput): Promise<ThresholdFit> {
  return pool.run("mitigate.fit", input);
}

/** The threshold mitigation of a request, in a worker of `pool`. */
export function mitigateThreshold(pool: WorkerPool, input: ThresholdInput): Promise<ThresholdResult> {
  return pool.run("mitigate.threshold", input, timeout(input.workLimitSeconds));
}
