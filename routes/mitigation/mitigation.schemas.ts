/**
 * Request and response schemas of the mitigation routes (spec 2 `mitigate/relabel`,
 * `mitigate/threshold`, `mitigate/writeback`): the audit's fields plus the solver's, and answers that
 * carry both audits.
 */
import { z } from "@hono/zod-openapi";
import { auditFields, AuditPayload, toAuditSettings, withAuditRules } from "../spatial/spatial.schemas.ts";
import { statusTable } from "./descriptions.ts";
import type { RelabelSettings, ThresholdSettings } from "../../services/mitigation/mitigate.ts";

/** The fields relabel and threshold add to the audit's. */
export const mitigationFields = {
  ...auditFields,
  approx: z.boolean().default(true).openapi({
    description: "true: PROMIS-Approx, a linear program solved by HiGHS; false: PROMIS-Exact, the minimum " +
      "of the summed scan statistic over integer flips (proven optimal, or the best found at the limit)",
  }),
  budget_constr: z.number().min(0).default(0.2).openapi({
    description:
      "flip budget C: a value ≤ 1 is a fraction of the individuals in scope (C = floor(fraction·N)); " +
      "a value > 1 is an absolute number of flips, floored (2.7 allows 2)",
  }),
  pr_constr: z.number().min(0).max(1).default(0.1).openapi({
    description: "relative tolerance of the positive rate (of the true-positive rate under equal_opp): the " +
      "new rate stays within [(1-s)·rate, (1+s)·rate]",
  }),
  work_limit: z.number().min(1).max(3600).default(30).openapi({
    description: "seconds of solver time (HiGHS time_limit; for the exact method, the wall-clock limit of " +
      "its search); reaching it answers the best solution found with a 'limit reached' status",
  }),
};

export const RelabelRequest = withAuditRules(z.object(mitigationFields).strict()).openapi("RelabelRequest");
export type RelabelRequest = z.infer<typeof RelabelRequest>;

export const ThresholdRequest = withAuditRules(
  z.object({
    ...mitigationFields,
    default_boundary: z.number().min(0).max(1).default(0.5).openapi({
      description: "the base model's threshold t0",
    }),
    train_ratio: z.number().gt(0).lt(1).default(0.7),
    stratified: z.boolean().default(true).openapi({
      description: "stratify the split on y_true (else y_pred)",
    }),
    random_state: z.number().int().min(0).max(2 ** 32 - 1).default(42),
  }).strict(),
).openapi("ThresholdRequest");
export type ThresholdRequest = z.infer<typeof ThresholdRequest>;

/** The relabel settings of a validated relabel or threshold body, as the services take them. */
export function toRelabelSettings(body: RelabelRequest): RelabelSettings {
  return {
    ...toAuditSettings(body),
    approx: body.approx,
    budget: body.budget_constr,
    prTol: body.pr_constr,
    workLimitSeconds: body.work_limit,
  };
}

/** The threshold settings of a validated threshold body. */
export function toThresholdSettings(body: ThresholdRequest): ThresholdSettings {
  return {
    ...toRelabelSettings(body),
    defaultBoundary: body.default_boundary,
    trainRatio: body.train_ratio,
    stratified: body.stratified,
    randomState: body.random_state,
  };
}

const count = z.number().int();

export const ClassificationMetrics = z.object({
  accuracy: z.number(),
  precision: z.number().openapi({ description: "0 when nothing is predicted positive" }),
  recall: z.number().openapi({ description: "0 when no individual has y_true = 1" }),
  f1: z.number(),
  tp: count,
  fp: count,
  tn: count,
  fn: count,
  n: count.openapi({ description: "individuals counted" }),
}).openapi("ClassificationMetrics", {
  description: "predictions against y_true (positive class 1); a ratio whose denominator is 0 is 0",
});

/** A union rather than `.nullable()`, which would turn the shared component itself nullable. */
const MetricsOrNull = z.union([ClassificationMetrics, z.null()]);

export const MitigationResponse = z.object({
  metrics_before: MetricsOrNull.openapi({
    description: "accuracy, precision, recall, F1 with their confusion counts, over every individual " +
      "(threshold: over the test part); null without y_true",
  }),
  metrics_after: MetricsOrNull.openapi({ description: "the same after the flips" }),
  audit_before_mitigation: AuditPayload,
  audit_after_mitigation: AuditPayload.openapi({ description: "colour scale capped as the before-audit's" }),
  mitigated_preds: z.array(z.object({ idx: count, doc_id: z.string(), y_pred: count }))
    .openapi({ description: "the individuals whose prediction changed, with the new prediction" }),
  flips_map_html: z.string(),
  flips_map_image: z.string().openapi({ description: "PNG, base64" }),
  solver_status_code: count.openapi({
    description: `${statusTable} (3 never comes from a request: see the operation description)`,
  }),
  solver_status_message: z.string(),
  solver_detail: z.string().openapi({
    description: "which limit stopped the search, or how optimality was proven",
  }),
  objective: z.number().nullable().openapi({
    description: "value of the model solved (approx: Σ w_i|ρin_i - ρout_i|; exact: Σ_i (l1_i - l0)); null " +
      "without a solution",
  }),
  bound: z.number().nullable().openapi({
    description:
      "exact method: a proven lower bound of the optimum (equal to objective when optimal); null " +
      "for approx",
  }),
  regions_delta: z.array(z.object({ idx: count, region_id: count, delta: z.number() }))
    .openapi({ description: "δ per region as solved (real for approx, before rounding; integer for exact)" }),
  n_flips: count,
  positive_rate_before: z.number().openapi({ description: "in scope (true-positive rate under equal_opp)" }),
  positive_rate_after: z.number(),
  flip_budget: count.openapi({
    description: "C, the most flips allowed: floor(budget_constr·N) for budget_constr ≤ 1, else " +
      "floor(budget_constr) (threshold: N of the training part)",
  }),
  new_positives_window: z.array(count).length(2).openapi({
    description: "[lo, hi]: the number of positives in scope after the flips stays in it; the rate window " +
      "of pr_constr, rounded inwards to integers, within ±flip_budget of the current count (threshold: of " +
      "the training part, where the fit runs)",
  }),
  solver_seconds: z.number().openapi({ description: "seconds spent in the solver" }),
  elapsed_ms: z.number().openapi({ description: "the whole request, audits and maps included" }),
}).openapi("MitigationResponse");

export const RegionThreshold = z.object({
  idx: count.openapi({ description: "the region's position, as in the audits' stats" }),
  threshold: z.number().openapi({
    description: "y_pred_prob above it predicts 1 (default_boundary where δ = 0 or without a solution)",
  }),
  eq_to_thresh_flip_prob: z.number().openapi({
    description: "-1: no tie-breaking. Otherwise the probability that an individual whose y_pred_prob " +
      "equals the threshold is predicted 1 (drawn from a generator seeded by random_state)",
  }),
}).openapi("RegionThreshold");

export const ThresholdResponse = MitigationResponse.extend({
  threshold_chart_before: z.string().openapi({ description: "PNG, base64" }),
  threshold_chart_after: z.string().openapi({ description: "PNG, base64" }),
  new_thresholds: z.array(RegionThreshold).openapi({ description: "one per region, in region order" }),
  train_size: count.openapi({ description: "individuals in the training part (the fit)" }),
  test_size: count.openapi({
    description: "individuals in the test part (audits, metrics, flips)",
  }),
}).openapi("ThresholdResponse");

export const WritebackRequest = z.object({
  new_field: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).max(128),
  preds: z.array(
    z.object({ doc_id: z.string().min(1), y_pred: z.union([z.literal(0), z.literal(1)]) }).strict(),
  )
    .min(1)
    .openapi({ description: "each doc_id at most once" }),
}).strict().openapi("WritebackRequest");

export const WritebackResponse = z.object({
  new_field: z.string(),
  matched: count.openapi({ description: "listed documents found" }),
  modified: count.openapi({ description: "of them, changed (0 when the field held the value already)" }),
  not_found: z.array(z.string()).openapi({ description: "listed doc_ids with no document" }),
  written_at: z.string(),
}).openapi("WritebackResponse");
