/**
 * A mitigation computed and answered without a trace in the store: no run listed or kept, no note on a
 * task (the toolkit's stateless routes without `keep`). The same work as a live one (relabel.ts,
 * threshold.ts), its run's writer and progress doing nothing.
 */
import { type RunAnswer, withoutMaps } from "../spatial/run_chunks.ts";
import type { SpatialDeps } from "../spatial/audit.ts";
import {
  liveMitigation,
  type Mitigation,
  type MitigationKind,
  type MitigationTarget,
} from "./live_mitigation.ts";

/** A Mitigation whose run is nowhere: its answer's `run_id` is empty. */
export function detachedMitigation(deps: SpatialDeps): Mitigation {
  return {
    deps,
    detached: true,
    live: { phase() {}, solved() {}, solver: () => {} },
    writer: {
      describe() {},
      writeMaps() {},
      writePredictions() {},
      keep: <T extends object>(answer: T, includeMaps = true) =>
        Promise.resolve({ ...(includeMaps ? answer : withoutMaps(answer)), run_id: "" } as RunAnswer<T>),
    },
  };
}

/** `work` as a live run of the task `target.collectionName` when `live`, else detached: nothing stored. */
export function liveOrDetached<T>(
  deps: SpatialDeps,
  target: MitigationTarget & { workLimitSeconds: number },
  kind: MitigationKind,
  live: boolean,
  work: (m: Mitigation) => Promise<T>,
): Promise<T> {
  return live ? liveMitigation(deps, target, kind, work) : work(detachedMitigation(deps));
}
