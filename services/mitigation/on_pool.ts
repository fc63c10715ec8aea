/**
 * The mitigations over the worker pool (their tasks are in workers/tasks/mitigate.ts). Callers use
 * `mitigateRelabel(pool, input)`, `thresholdParts(pool, input)`, `thresholdFitOf(pool, input)` and
 * `mitigateThreshold(pool, input)`: the pool copies the inputs (it transfers only when asked), so the
 * caller keeps its columns for the audits after; the pool's timeout sits above work_limit (the solver
 * stops itself at work_limit; the timeout only catches a runaway worker). The solver's progress comes
 * back as it runs (`onProgress`).
 */
import type { WorkerPool } from "../../workers/pool.ts";
import type { RelabelInput, RelabelResult } from "../../core/spatial/mitigate/relabel.ts";
import type { FitInput } from "../../workers/tasks/mitigate.ts";
import type { OnProgress, SolveProgress } from "../../core/spatial/mitigate/status.ts";
import type {
  ThresholdFit,
  ThresholdInput,
  ThresholdResult,
  thresholdSplit,
} from "../../core/spatial/mitigate/threshold_mitigation.ts";
import type { TrainTest } from "../../core/spatial/mitigate/train_test_split.ts";

/** Seconds the pool waits beyond work_limit (problem building, flips, metrics at a million individuals). */
const MARGIN_MS = 120_000;

/** The pool's options of a solver's task: its timeout, and its progress handed to `onProgress`. */
const options = (workLimitSeconds: number, onProgress?: OnProgress) => ({
  timeoutMs: Math.ceil(workLimitSeconds * 1000) + MARGIN_MS,
  // the boundary is trusted: the task's reports are its solver's (workers/tasks/mitigate.ts)
  onProgress: onProgress && ((p: unknown) => onProgress(p as SolveProgress)),
});

/** The relabel mitigation of a request, in a worker of `pool`, reporting the solver's progress. */
export function mitigateRelabel(
  pool: WorkerPool,
  input: RelabelInput,
  onProgress?: OnProgress,
): Promise<RelabelResult> {
  return pool.run("mitigate.relabel", input, options(input.workLimitSeconds, onProgress));
}

/** The train/test split a threshold mitigation of these settings makes, in a worker of `pool`. */
export function thresholdParts(
  pool: WorkerPool,
  input: Parameters<typeof thresholdSplit>[0],
): Promise<TrainTest> {
  return pool.run("mitigate.split", input);
}

/** The training part's fit of a split (`thresholdFit`), in shared memory, in a worker of `pool`. */
export function thresholdFitOf(pool: WorkerPool, input: FitInput): Promise<ThresholdFit> {
  return pool.run("mitigate.fit", input);
}

/** The threshold mitigation of a request, in a worker of `pool`, reporting the solver's progress. */
export function mitigateThreshold(
  pool: WorkerPool,
  input: ThresholdInput,
  onProgress?: OnProgress,
): Promise<ThresholdResult> {
  return pool.run("mitigate.threshold", input, options(input.workLimitSeconds, onProgress));
}
