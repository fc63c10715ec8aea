/** What a relabel or threshold request asks, under core's names (the handlers convert the request to it). */
import type { FlipOrder } from "../../core/spatial/mitigate/flips.ts";
import type { RelabelInput } from "../../core/spatial/mitigate/relabel.ts";
import type { ThresholdInput } from "../../core/spatial/mitigate/threshold_mitigation.ts";
import { type AuditSettings } from "../spatial/audit.ts";
import { DataMismatchError } from "../../core/errors.ts";
import type { Regions } from "../../core/spatial/types.ts";

/**
 * The settings of a relabel request: the audit's, the solver's under core's names, and flip_order
 * (undefined: "uncertainty" when every individual has a probability, else "index").
 */
export type RelabelSettings = AuditSettings & SolverSettings & { flipOrder?: FlipOrder };

/**
 * The solver's knobs, as both of core's mitigations take them, and the reviewer's constraints:
 * `frozenRegions` as region ids (core takes positions: `solverInput` maps them), `maxFlips` as asked.
 */
export type SolverSettings =
  & Pick<RelabelInput, "approx" | "budget" | "prTol" | "workLimitSeconds">
  & { frozenRegions?: number[]; maxFlips?: number | null };

/**
 * The solver's input of a relabel or threshold request over `regions`: its knobs, and the frozen regions'
 * positions; an id that is none of the regions is a 409 naming its place in `frozen_regions` (the task's
 * documents make the regions, so /openapi.json cannot rule it out).
 */
export function solverInput(s: SolverSettings, regions: Pick<Regions, "ids">) {
  const at = new Map(regions.ids.map((id, r) => [id, r]));
  const frozen = (s.frozenRegions ?? []).map((id, k) => {
    const r = at.get(id);
    if (r === undefined) {
      throw new DataMismatchError(`region ${id} is not one of the audit's regions`, [
        "body",
        "frozen_regions",
        k,
      ]);
    }
    return r;
  });
  return {
    approx: s.approx,
    budget: s.budget,
    prTol: s.prTol,
    workLimitSeconds: s.workLimitSeconds,
    frozen,
    maxFlips: s.maxFlips ?? null,
  };
}

/** The constraints as an answer echoes them: the frozen ids ascending and once, the cap or null. */
export function constraintFields(s: SolverSettings) {
  return {
    frozen_regions: [...new Set(s.frozenRegions ?? [])].sort((a, b) => a - b),
    max_flips_per_region: s.maxFlips ?? null,
  };
}

/** The settings of a threshold request: relabel's, and the split and boundary of the fit. */
export type ThresholdSettings =
  & RelabelSettings
  & Pick<ThresholdInput, "defaultBoundary" | "trainRatio" | "stratified" | "randomState">;
