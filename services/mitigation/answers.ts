/** What the two mitigations answer, and the fields they take from the solver's result. */
import type { ClassificationMetrics } from "../../core/spatial/mitigate/metrics.ts";
import type { RegionThreshold } from "../../core/spatial/mitigate/region_thresholds.ts";
import type { FlipOrder } from "../../core/spatial/mitigate/flips.ts";
import type { MitigationOutcome } from "../../core/spatial/mitigate/outcome.ts";
import type { SolverStatusCode } from "../../core/spatial/mitigate/status.ts";
import type { Regions } from "../../core/spatial/types.ts";
import { type AuditPayload } from "../spatial/audit.ts";
import { type Phases } from "../spatial/phases.ts";
import { PredictionLines } from "./prediction_lines.ts";

/** The answer of `mitigate/relabel`, and the part `mitigate/threshold` shares. */
export interface MitigationAnswer {
  metrics_before: ClassificationMetrics | null;
  metrics_after: ClassificationMetrics | null;
  solver_status_code: SolverStatusCode;
  solver_status_message: string;
  solver_detail: string;
  objective: number | null;
  bound: number | null;
  gap: number | null;
  regions_delta: { idx: number; region_id: number; delta: number }[];
  n_flips: number;
  n_flips_per_region: RegionFlipCount[];
  flip_order: FlipOrder | null;
  positive_rate_before: number;
  positive_rate_after: number;
  flip_budget: number;
  new_positives_window: [number, number];
  solver_seconds: number;
  /** The reviewer's constraints as asked (settings.ts constraintFields). */
  frozen_regions: number[];
  max_flips_per_region: number | null;
  audit_before_mitigation: AuditPayload;
  audit_after_mitigation: AuditPayload;
  mitigated_preds: PredictionLines;
  flips_map_html: string;
  flips_map_image: string;
  phases: Phases;
  elapsed_ms: number;
}

/** The answer of `mitigate/threshold`. */
export interface ThresholdAnswer extends MitigationAnswer {
  threshold_chart_before: string;
  threshold_chart_after: string;
  new_thresholds: (RegionThreshold & { region_id: number })[];
  train_size: number;
  test_size: number;
}

/** One line of `n_flips_per_region`. */
export interface RegionFlipCount {
  idx: number;
  region_id: number;
  n_flips: number;
  n_to_positive: number;
  n_to_negative: number;
}

/** The fields relabel and threshold answers share, from the solver's result. */
export function solverFields(r: MitigationOutcome, regions: Regions) {
  return {
    metrics_before: r.metricsBefore,
    metrics_after: r.metricsAfter,
    solver_status_code: r.status.code,
    solver_status_message: r.status.message,
    solver_detail: r.status.detail,
    objective: r.objective,
    bound: r.bound,
    gap: r.gap,
    regions_delta: Array.from(r.regionsDelta, (delta, idx) => ({ idx, region_id: regions.ids[idx], delta })),
    n_flips: r.nFlips,
    n_flips_per_region: Array.from(r.regionFlips.toPositive, (up, idx) => {
      const down = r.regionFlips.toNegative[idx];
      return { idx, region_id: regions.ids[idx], n_flips: up + down, n_to_positive: up, n_to_negative: down };
    }),
    positive_rate_before: r.positiveRateBefore,
    positive_rate_after: r.positiveRateAfter,
    flip_budget: r.flipBudget,
    new_positives_window: r.newPositivesWindow,
    solver_seconds: r.seconds.solve,
  };
}
