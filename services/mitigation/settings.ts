/** What a relabel or threshold request asks, under core's names (the handlers convert the request to it). */
import type { FlipOrder } from "../../core/spatial/mitigate/flips.ts";
import type { RelabelInput } from "../../core/spatial/mitigate/relabel.ts";
import type { ThresholdInput } from "../../core/spatial/mitigate/threshold_mitigation.ts";
import { type AuditSettings } from "../spatial/audit.ts";

/**
 * The settings of a relabel request: the audit's, the solver's under core's names, and flip_order
 * (undefined: "uncertainty" when every individual has a probability, else "index").
 */
export type RelabelSettings = AuditSettings & SolverSettings & { flipOrder?: FlipOrder };

/** The solver's knobs, as both of core's mitigations take them. */
export type SolverSettings = Pick<RelabelInput, "approx" | "budget" | "prTol" | "workLimitSeconds">;

/** The solver's knobs of a relabel or threshold request. */
export function solverSettings(s: SolverSettings): SolverSettings {
  return { approx: s.approx, budget: s.budget, prTol: s.prTol, workLimitSeconds: s.workLimitSeconds };
}

/** The settings of a threshold request: relabel's, and the split and boundary of the fit. */
export type ThresholdSettings =
  & RelabelSettings
  & Pick<ThresholdInput, "defaultBoundary" | "trainRatio" | "stratified" | "randomState">;
