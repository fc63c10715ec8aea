/** Request and response schemas of the spatial HITL routes (spec 2), with the defaults of the notes. */
import { z } from "@hono/zod-openapi";
import { MAPPING_KEYS } from "../../core/spatial/mapping.ts";
import { statusTable } from "../mitigation/descriptions.ts";

const Point = z.tuple([
  z.number().min(-180).max(180).openapi({ description: "longitude" }),
  z.number().min(-90).max(90).openapi({ description: "latitude" }),
]);

export const RegionPolygon = z.object({
  polygon: z.array(Point).min(3).openapi({
    description: "at least 3 `[lon, lat]` points; the ring need not be closed",
  }),
}).strict().openapi("RegionPolygon");

export const FieldMapping = z.object(
  Object.fromEntries(MAPPING_KEYS.map((k) => [k, z.string().min(1).optional()])) as Record<
    typeof MAPPING_KEYS[number],
    z.ZodOptional<z.ZodString>
  >,
).strict().openapi("FieldMapping", {
  description: "collection field for each slot; a field given here must be in every document. A key left " +
    "out reads its own name when the documents have that field, else the synonym dataset-columns shows " +
    "in mapping_defaults",
});

/** The fields audit, relabel and threshold share. */
export const auditFields = {
  n_worlds: z.number().int().min(1).max(100_000).default(400).openapi({
    description: "Monte Carlo worlds (alternate labelings under the null)",
  }),
  signif_level: z.number().gt(0).lt(1).default(0.005),
  equal_opp: z.boolean().default(true).openapi({
    description: "true: audit true-positive rates (individuals with y_true = 1); false: statistical parity",
  }),
  full_distribution: z.boolean().default(false).openapi({
    description: "draw every individual in the distribution map (default: at most 10,000 sampled)",
  }),
  region: z.array(RegionPolygon).min(1).nullable().optional(),
  mapping: FieldMapping.optional(),
  seed: z.number().int().min(0).max(2 ** 32 - 1).default(42).openapi({
    description: "seed of the Monte Carlo worlds, and of which individuals the distribution map draws " +
      "when it samples. k-means regions do not use it: they use a fixed seed (42), as the notes ask, " +
      "so a collection's regions never depend on the request",
  }),
  rng: z.enum(["fast", "numpy"]).default("fast").openapi({
    description: "fast: one exact Binomial draw per membership signature per world; numpy: the reference's " +
      "MT19937 stream (seed + w per world, one double per individual in collection order) bit for bit",
  }),
};

export const AuditRequest = z.object(auditFields).strict().openapi("AuditRequest");
export type AuditRequest = z.infer<typeof AuditRequest>;

export const DatasetColumns = z.object({
  data_collection_name: z.string(),
  database_name: z.string(),
  sampled: z.number().int(),
  columns: z.array(z.object({
    name: z.string(),
    type: z.string(),
    count: z.number().int(),
    example: z.unknown(),
  })),
  mapping_defaults: z.record(z.string(), z.string().nullable()).openapi({
    description: "per mapping key, the field an audit reads when its request leaves the key out (null: " +
      "no such field, the slot is absent)",
  }),
}).openapi("DatasetColumns");

export const RegionStatSchema = z.object({
  idx: z.number().int(),
  region_id: z.number().int(),
  n: z.number().int(),
  p: z.number().int(),
  rate: z.number().nullable(),
  raw_stat: z.number(),
  stat: z.number().openapi({ description: "normalised statistic s = (l1 - l0)/|l0| in [0, 1]" }),
  p_value: z.number().openapi({ description: "Monte Carlo p-value (1 + #{w: M_w >= s}) / (W + 1)" }),
  is_signif: z.boolean().openapi({
    description: "s >= signif_thresh and s > 0: a region with no difference at all (s = 0) is never " +
      "significant, even when every world maximum is 0 too (P = 0 or P = N, so signif_thresh = 0)",
  }),
}).openapi("RegionStat");

export const AuditResponse = z.object({
  sbi_score: z.number(),
  signif_thresh: z.number(),
  total_signif_regions: z.number().int(),
  stats: z.array(RegionStatSchema),
  n_individuals: z.number().int(),
  n_positives: z.number().int(),
  rng: z.enum(["fast", "numpy"]),
  seed: z.number().int(),
  n_worlds: z.number().int(),
  signif_level: z.number(),
  regions_source: z.enum(["region_ids", "polygons", "kmeans"]),
  unassigned_individuals: z.number().int().openapi({ description: "individuals in scope inside no polygon" }),
  fair_map_html: z.string(),
  fair_map_image: z.string().openapi({ description: "PNG, base64" }),
  distribution_map_html: z.string(),
  distribution_map_image: z.string().openapi({ description: "PNG, base64" }),
  elapsed_ms: z.number(),
}).openapi("AuditResponse");

export const WritebackRequest = z.object({
  new_field: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).max(128),
  preds: z.array(
    z.object({ doc_id: z.string().min(1), y_pred: z.union([z.literal(0), z.literal(1)]) }).strict(),
  )
    .min(1),
}).strict().openapi("WritebackRequest");

export const WritebackResponse = z.object({
  new_field: z.string(),
  matched: z.number().int(),
  modified: z.number().int(),
  not_found: z.array(z.string()),
  written_at: z.string(),
}).openapi("WritebackResponse");

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

export const RelabelRequest = z.object(mitigationFields).strict().openapi("RelabelRequest");
export type RelabelRequest = z.infer<typeof RelabelRequest>;

export const ThresholdRequest = z.object({
  ...mitigationFields,
  default_boundary: z.number().min(0).max(1).default(0.5).openapi({
    description: "the base model's threshold t0",
  }),
  train_ratio: z.number().gt(0).lt(1).default(0.7),
  stratified: z.boolean().default(true).openapi({
    description: "stratify the split on y_true (else y_pred)",
  }),
  random_state: z.number().int().min(0).max(2 ** 32 - 1).default(42),
}).strict().openapi("ThresholdRequest");
export type ThresholdRequest = z.infer<typeof ThresholdRequest>;

export const MitigationResponse = z.object({
  metrics_before: z.unknown().openapi({
    description: "accuracy, precision, recall, F1 (null without y_true)",
  }),
  metrics_after: z.unknown().openapi({ description: "the same after the flips" }),
  audit_before_mitigation: z.unknown(),
  audit_after_mitigation: z.unknown().openapi({ description: "colour scale capped as the before-audit's" }),
  mitigated_preds: z.array(z.object({ idx: z.number().int(), doc_id: z.string(), y_pred: z.number().int() }))
    .openapi({ description: "the individuals whose prediction changed, with the new prediction" }),
  flips_map_html: z.string(),
  flips_map_image: z.string().openapi({ description: "PNG, base64" }),
  solver_status_code: z.number().int().openapi({
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
  regions_delta: z.array(z.object({ idx: z.number().int(), region_id: z.number().int(), delta: z.number() }))
    .openapi({ description: "δ per region as solved (real for approx, before rounding; integer for exact)" }),
  n_flips: z.number().int(),
  positive_rate_before: z.number().openapi({ description: "in scope (true-positive rate under equal_opp)" }),
  positive_rate_after: z.number(),
  flip_budget: z.number().int().openapi({
    description: "C, the most flips allowed: floor(budget_constr·N) for budget_constr ≤ 1, else " +
      "floor(budget_constr) (threshold: N of the training part)",
  }),
  new_positives_window: z.array(z.number().int()).length(2).openapi({
    description: "[lo, hi]: the number of positives in scope after the flips stays in it; the rate window " +
      "of pr_constr, rounded inwards to integers, within ±flip_budget of the current count (threshold: of " +
      "the training part, where the fit runs)",
  }),
  solver_seconds: z.number().openapi({ description: "seconds spent in the solver" }),
  elapsed_ms: z.number().openapi({ description: "the whole request, audits and maps included" }),
}).openapi("MitigationResponse");

export const ThresholdResponse = MitigationResponse.extend({
  threshold_chart_before: z.string().openapi({ description: "PNG, base64" }),
  threshold_chart_after: z.string().openapi({ description: "PNG, base64" }),
  new_thresholds: z.array(z.object({
    idx: z.number().int(),
    threshold: z.number(),
    eq_to_thresh_flip_prob: z.number().openapi({ description: "-1: no tie-breaking" }),
  })),
  train_size: z.number().int().openapi({ description: "individuals in the training part (the fit)" }),
  test_size: z.number().int().openapi({
    description: "individuals in the test part (audits, metrics, flips)",
  }),
}).openapi("ThresholdResponse");
