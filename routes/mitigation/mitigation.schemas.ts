/**
 * Request and response schemas of the mitigation routes (spec 2 `mitigate/relabel`,
 * `mitigate/threshold`, `mitigate/writeback`): the audit's fields plus the solver's, and answers that
 * carry both audits.
 */
import { z } from "@hono/zod-openapi";
import {
  auditFields,
  AuditPayload,
  mapField,
  Phases,
  runIdField,
  TaskParams,
  toAuditSettings,
  withAuditRules,
} from "../spatial/spatial.schemas.ts";
import { statusTable } from "./descriptions.ts";
import { MAPPING_KEYS } from "../../core/spatial/mapping.ts";
import { FLIP_ORDERS } from "../../core/spatial/mitigate/flips.ts";
import type { RelabelSettings, ThresholdSettings } from "../../services/mitigation/settings.ts";

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
  frozen_regions: z.array(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER)).max(100_000).default([])
    .openapi({
      description: "region ids (the audit's region_id) whose members never flip; for threshold, whose " +
        "threshold stays at default_boundary. An id that is not one of the audit's regions is a 409 " +
        "naming its place (the task's documents decide the regions)",
    }),
  max_flips_per_region: z.number().min(0).nullable().default(null).openapi({
    description: "a cap on any region's flips: a value ≤ 1 is a fraction of the region's members " +
      "(floored), a value > 1 a count (floored); null: no cap. For threshold, of the training part",
  }),
};

export const RelabelRequest = withAuditRules(
  z.object({
    ...mitigationFields,
    flip_order: z.enum(FLIP_ORDERS).optional().openapi({
      description: "which members of a group of interchangeable individuals (same regions, same " +
        'prediction) flip, once the solver has fixed how many: "uncertainty" the least certain first ' +
        "(to 1: the highest y_pred_prob among the predicted negatives; to 0: the lowest among the predicted " +
        'positives), "random" a random choice seeded by `seed`, "index" the first in collection order ' +
        '(the reference\'s choice). Ties break by an order seeded by `seed`. Default: "uncertainty" when ' +
        'every individual has a y_pred_prob (mapped, or found by the default mapping), else "index"; ' +
        '"uncertainty" without one is a 422. The objective, the counts per region and the status never ' +
        "depend on it",
    }),
  }).strict(),
).openapi("RelabelRequest");
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
    frozenRegions: body.frozen_regions,
    maxFlips: body.max_flips_per_region,
    flipOrder: body.flip_order,
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
  mitigated_preds: z.array(z.object({
    idx: count.openapi({ description: "position in collection order, as the audit reads it" }),
    doc_id: z.string(),
    y_pred: count.openapi({ description: "the final prediction" }),
    flipped: z.boolean().openapi({ description: "true when the mitigation changed the prediction" }),
  })).openapi({
    description: "the final predictions of every individual the mitigation judged, in collection order: " +
      "relabel, every individual of the collection (under equal_opp those with y_true = 0 are out of " +
      "scope, never flip and keep their y_pred); threshold, every individual of the test part (the " +
      "thresholds predict all of it; the training part keeps its y_pred and is not listed)",
  }),
  flip_order: z.enum(FLIP_ORDERS).nullable().openapi({
    description: "relabel: the flip order applied (the request's, or its default); threshold: null, " +
      "the thresholds decide by y_pred_prob",
  }),
  n_flips_per_region: z.array(z.object({
    idx: count,
    region_id: count,
    n_flips: count.openapi({ description: "n_to_positive + n_to_negative" }),
    n_to_positive: count.openapi({ description: "members flipped from 0 to 1" }),
    n_to_negative: count.openapi({ description: "members flipped from 1 to 0" }),
  })).openapi({
    description: "flips among each region's members, in region order (relabel: the solution's counts, " +
      "|rounded δ| of the region with disjoint regions; threshold: of the test part). A flip counts in " +
      "every region its individual belongs to; one in no region counts in none, so the sum can differ " +
      "from n_flips",
  }),
  flips_map_html: mapField("an HTML page"),
  flips_map_image: mapField("PNG, base64"),
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
    description: "a proven lower bound of the optimum (approx: from the model's dual; exact: the search's; " +
      "equal to objective within the gap tolerance when optimal); null without a solution",
  }),
  gap: z.number().nullable().openapi({
    description: "(objective − bound) / max(1, |objective|): status 0 only when it is at most 1e-6; null " +
      "without a solution",
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
  frozen_regions: z.array(count).openapi({
    description: "the request's frozen_regions, ascending, each once: none of their members flipped",
  }),
  max_flips_per_region: z.number().nullable().openapi({ description: "the request's max_flips_per_region" }),
  run_id: runIdField,
  phases: Phases,
  elapsed_ms: z.number().openapi({ description: "the whole request, audits and maps included" }),
}).openapi("MitigationResponse");

export const RegionThreshold = z.object({
  idx: count.openapi({ description: "the region's position, as in the audits' stats" }),
  region_id: count.openapi({ description: "the region's id, as in the audits' stats" }),
  threshold: z.number().openapi({
    description: "y_pred_prob above it predicts 1 (default_boundary where δ = 0 or without a solution)",
  }),
  eq_to_thresh_flip_prob: z.number().openapi({
    description: "tie probability: -1 means no tie-breaking (an individual whose y_pred_prob equals the " +
      "threshold is predicted 0, as any y_pred_prob ≤ threshold); a value p in [0, 1] is set when the cut " +
      "falls among training candidates with equal y_pred_prob (or on candidates at default_boundary), and " +
      "an individual exactly at the threshold is then predicted 1 with probability p (a draw seeded by " +
      "random_state). Always a number, never null: -1 as the reference answered it",
  }),
}).openapi("RegionThreshold");

export const ThresholdResponse = MitigationResponse.extend({
  threshold_chart_before: mapField("PNG, base64"),
  threshold_chart_after: mapField("PNG, base64"),
  new_thresholds: z.array(RegionThreshold).openapi({ description: "one per region, in region order" }),
  train_size: count.openapi({ description: "individuals in the training part (the fit)" }),
  test_size: count.openapi({
    description: "individuals in the test part (audits, metrics, flips)",
  }),
}).openapi("ThresholdResponse");

export const WritebackRequest = z.object({
  new_field: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).max(128).openapi({
    description: "the field to write: a new one, never `_id`, a mapping key's name, a field the task's " +
      "mapping uses, or a field documents hold that no write-back of this task created (those need the " +
      "task and its data: a 422 naming new_field)",
    not: { enum: ["_id", ...MAPPING_KEYS] },
  }),
  preds: z.array(
    z.object({ doc_id: z.string().min(1), y_pred: z.union([z.literal(0), z.literal(1)]) }).strict(),
  )
    .min(1)
    .optional()
    .openapi({
      description: "the predictions to write, applied in order (a doc_id listed again gets its last " +
        "line's y_pred); or give run_id instead",
    }),
  run_id: z.string().min(1).max(128).optional().openapi({
    description: "instead of preds: a kept run of this task (relabel or threshold, the `run_id` of its " +
      "answer) whose final predictions, every line of its mitigated_preds, the server writes",
  }),
}).strict().superRefine((v, ctx) => {
  if (v.preds && v.run_id !== undefined) {
    ctx.addIssue({ code: "custom", path: ["run_id"], message: "give either preds or run_id, not both" });
  } else if (!v.preds && v.run_id === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["preds"],
      message: "give preds (the predictions to write) or run_id (a run whose predictions to write)",
    });
  }
}, { when: (payload) => payload.issues.length === 0 }).openapi("WritebackRequest", {
  oneOf: [{ required: ["preds"] }, { required: ["run_id"] }], // the superRefine above, for the document
});

export const WritebackResponse = z.object({
  writeback_id: z.string().openapi({ description: "what names this write-back to undo it" }),
  new_field: z.string(),
  matched: count.openapi({ description: "documents found (of those listed, or of the run's predictions)" }),
  modified: count.openapi({ description: "of them, changed (0 when the field held the value already)" }),
  not_found: z.array(z.string()).openapi({ description: "doc_ids with no document" }),
  written_at: z.string(),
  run_id: z.string().optional().openapi({
    description: "the run whose predictions were written, when given",
  }),
}).openapi("WritebackResponse");

export const WritebackParams = TaskParams.extend({
  writeback_id: z.string().min(1).max(128).openapi({ description: "a write-back's `writeback_id`" }),
});

const Who = z.object({ sub: z.string(), username: z.string().nullable() });

export const UndoResponse = z.object({
  writeback_id: z.string(),
  new_field: z.string(),
  restored: count.openapi({ description: "documents holding their value from before the write-back again" }),
  skipped: z.array(z.string()).openapi({
    description: "documents changed since the write-back by someone else, left as they are (the first 1,000)",
  }),
  skipped_count: count.openapi({ description: "all the skipped documents" }),
  missing: count.openapi({ description: "documents deleted since the write-back" }),
  undone_at: z.string(),
  undone_by: Who,
}).openapi("WritebackUndoResponse");
