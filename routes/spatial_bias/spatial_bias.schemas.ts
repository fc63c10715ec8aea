/**
 * Request and answer schemas of the reference toolkit's stateless routes (issue 39), with its names,
 * defaults and bounds. An individual's schema is core's (core/spatial/toolkit_individuals.ts: a worker
 * checks 200,000 of them); the edge checks the other fields with `shellOf` (the same schema, each list of
 * individuals already read), then the rules over fields (spatial_bias.rules.ts).
 */
import { z } from "@hono/zod-openapi";
import { toolkitIndividual } from "../../core/spatial/toolkit_individuals.ts";
import { DatabaseName } from "../datasets/datasets.schemas.ts";
import { RegionPolygon } from "../spatial/spatial.schemas.ts";

const EXAMPLE_INDIVIDUALS = [
  { y_pred: 1, y_true: 1, lat: 37.98, lon: 23.73 },
  { y_pred: 0, y_true: 1, lat: 37.97, lon: 23.72 },
  { y_pred: 1, y_true: 0, lat: 40.64, lon: 22.94 },
  { y_pred: 0, y_true: 1, lat: 40.63, lon: 22.95 },
];
const EXAMPLE_PROB = EXAMPLE_INDIVIDUALS.map((d, i) => ({ ...d, y_pred_prob: [0.81, 0.32, 0.66, 0.41][i] }));

/** lat and lon together or not at all, for /openapi.json (core's superRefine checks it). */
const LAT_WITH_LON: Record<string, unknown> = {
  anyOf: [
    {
      required: ["lat", "lon"],
      properties: { lat: { not: { type: "null" } }, lon: { not: { type: "null" } } },
    },
    { properties: { lat: { type: "null" }, lon: { type: "null" } } },
  ],
};

export const ToolkitIndividual = toolkitIndividual(false).openapi("ToolkitIndividual", {
  description: "one individual: y_pred required; lat and lon together or not at all; unknown keys refused",
  example: EXAMPLE_INDIVIDUALS[0],
  ...LAT_WITH_LON,
});
export const ToolkitScoredIndividual = toolkitIndividual(true).openapi("ToolkitScoredIndividual", {
  description: "an individual of the threshold's sets: y_pred_prob required",
  example: EXAMPLE_PROB[0],
  ...LAT_WITH_LON,
});

const individuals = <T extends z.ZodType>(item: T, what: string) =>
  z.array(item).min(1).openapi({
    description: `${what}: at least one; with equal_opp, y_true on every one; every one with coordinates, ` +
      "or every one with region_ids (then each id indexes region_info when it is given)",
  });

const regions = (what: string) =>
  z.array(RegionPolygon).nullish().openapi({
    description: `${what}: polygons of [lon, lat] points. Without region_ids, a point belongs to each ` +
      "polygon containing it (none: counted as unassigned); without either, k-means regions with " +
      "k = max(5, ⌊√N / 2⌋). An empty list is none",
  });

/** The audit's settings, as the toolkit names them. */
const auditSettings = {
  n_worlds: z.number().int().min(1).max(100_000).default(400).openapi({
    description: "Monte Carlo worlds (alternate labelings under the null)",
  }),
  signif_level: z.number().gt(0).lt(1).default(0.005),
  equal_opp: z.boolean().default(true).openapi({
    description: "true: audit true-positive rates (individuals with y_true = 1); false: positive rates",
  }),
};

/** The mitigations' settings. */
const mitigationSettings = {
  ...auditSettings,
  approx: z.boolean().default(true).openapi({
    description: "true: PROMIS-Approx (a linear program, HiGHS); false: PROMIS-Exact (proven optimal, or " +
      "the best found within work_limit)",
  }),
  budget_constr: z.number().min(0).max(1).default(0.2).openapi({
    description: "flip budget as a fraction of the individuals in scope (C = ⌊fraction·N⌋)",
  }),
  pr_constr: z.number().min(0).max(1).default(0.1).openapi({
    description: "relative tolerance of the positive rate (true-positive rate under equal_opp)",
  }),
  work_limit: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable().default(30).openapi({
    description: "seconds of solver time (the toolkit's Gurobi work units were about a second each); null: " +
      "Tessera's longest, 3600 s, which also bounds a larger value; reaching it answers the best solution found",
  }),
};

/** The audit's request, its individuals as `item` (core's schema; a stand-in at the edge: shellOf). */
const auditRequest = <T extends z.ZodType>(item: T) =>
  z.object({
    ...auditSettings,
    indiv_info: individuals(item, "the individuals audited"),
    region_info: regions("the regions"),
  }).strict();

const relabelRequest = <T extends z.ZodType>(item: T) =>
  z.object({
    ...mitigationSettings,
    indiv_info: individuals(item, "the individuals whose predictions may flip"),
    region_info: regions("the regions"),
  }).strict();

const thresholdRequest = <T extends z.ZodType>(item: T) =>
  z.object({
    ...mitigationSettings,
    default_boundary: z.number().min(0).max(1).nullable().default(0.5).openapi({
      description: "the base model's threshold t0; null: 0.5",
    }),
    fit_indiv_info: individuals(item, "the individuals the thresholds are fitted on"),
    predict_indiv_info: individuals(item, "the individuals the thresholds are applied to"),
    region_info: regions("the regions of the fit set (and of the predict set, unless predict_region_info)"),
    predict_region_info: regions(
      "the predict set's regions: the same list as region_info (one set of regions: a threshold is a " +
        "region's), or left out",
    ),
  }).strict();

/** Every item of a list with these fields, not null (JSON Schema, for the rules over fields). */
const everyOneHas = (...fields: string[]) => ({
  items: {
    required: fields,
    properties: Object.fromEntries(fields.map((f) => [f, { not: { type: "null" } }])),
  },
});

/**
 * The rules over fields spatial_bias.rules.ts checks, for /openapi.json: y_true on every individual unless
 * equal_opp is false; coordinates on every individual, or region_ids on every one (across `sets`). That an id
 * indexes region_info is said in words: JSON Schema cannot compare a value with a list's length.
 */
const fieldRules = (...sets: string[]): Record<string, unknown> => ({
  allOf: [
    {
      if: { not: { required: ["equal_opp"], properties: { equal_opp: { const: false } } } },
      then: { properties: Object.fromEntries(sets.map((f) => [f, everyOneHas("y_true")])) },
    },
    {
      anyOf: [
        { properties: Object.fromEntries(sets.map((f) => [f, everyOneHas("lat", "lon")])) },
        { properties: Object.fromEntries(sets.map((f) => [f, everyOneHas("region_ids")])) },
      ],
    },
  ],
});

export const AuditRequest = auditRequest(ToolkitIndividual).openapi("ToolkitAuditRequest", {
  example: { indiv_info: EXAMPLE_INDIVIDUALS, n_worlds: 400, signif_level: 0.005, equal_opp: true },
  ...fieldRules("indiv_info"),
});
export const RelabelRequest = relabelRequest(ToolkitIndividual).openapi("ToolkitRelabelRequest", {
  example: { indiv_info: EXAMPLE_INDIVIDUALS, budget_constr: 0.2, pr_constr: 0.1, work_limit: 30 },
  ...fieldRules("indiv_info"),
});
export const ThresholdRequest = thresholdRequest(ToolkitScoredIndividual).openapi("ToolkitThresholdRequest", {
  example: { fit_indiv_info: EXAMPLE_PROB, predict_indiv_info: EXAMPLE_PROB, default_boundary: 0.5 },
  ...fieldRules("fit_indiv_info", "predict_indiv_info"),
});
export type AuditRequest = z.infer<typeof AuditRequest>;
export type RelabelRequest = z.infer<typeof RelabelRequest>;
export type ThresholdRequest = z.infer<typeof ThresholdRequest>;

/** The request's schema for the edge's check, its lists of individuals already read (their stand-ins). */
export const shellOf = {
  audit: auditRequest(z.unknown()),
  relabel: relabelRequest(z.unknown()),
  threshold: thresholdRequest(z.unknown()),
};

export const KeepQuery = z.object({
  keep: z.enum(["true", "false"]).default("false").openapi({
    description: "true: keep the individuals as a new dataset (`toolkit_<route>_<time>_<random>`, with a " +
      "task document) and the answer as that task's run, to continue in the console (write back, report, " +
      "undo); false (default): nothing is stored",
  }),
  database_name: DatabaseName.default("toolkit").openapi({
    description: "the database a kept dataset goes into (keep=true only; not Tessera's own, TESSERA_DB)",
  }),
});

const mapText = (what: string) => z.string().openapi({ description: what });

/** The toolkit's audit answer, and Tessera's extras beside it (the run's statistics in full, phases). */
export const ToolkitAudit = z.looseObject({
  sbi_score: z.number().openapi({ description: "mean normalised statistic over the non-empty regions" }),
  signif_thresh: z.number(),
  total_signif_regions: z.number().int(),
  fair_map_html: mapText("an HTML page"),
  fair_map_image: mapText("PNG, base64"),
  stats: z.array(z.looseObject({
    idx: z.number().int().openapi({ description: "the region's position in the sorted list of region ids" }),
    stat: z.number(),
    is_signif: z.boolean(),
  })),
  distribution_map_html: mapText("an HTML page"),
  distribution_map_image: mapText("PNG, base64"),
}).openapi("ToolkitAudit");

const Kept = {
  run_id: z.string().optional().openapi({ description: "keep=true: the run (GET .../runs/{run_id})" }),
  kept: z.object({ database_name: z.string(), task: z.string() }).optional().openapi({
    description: "keep=true: the dataset and task the individuals were kept as (its data_collection_name)",
  }),
};

/** An audit answer as the examples show it (the maps cut short). */
const EXAMPLE_AUDIT = {
  sbi_score: 0.0123,
  signif_thresh: 0.0311,
  total_signif_regions: 1,
  stats: [{ idx: 0, stat: 0.0342, is_signif: true }, { idx: 1, stat: 0.0011, is_signif: false }],
  fair_map_html: "<!doctype html>…",
  fair_map_image: "iVBORw0KGgo…",
  distribution_map_html: "<!doctype html>…",
  distribution_map_image: "iVBORw0KGgo…",
};

export const ToolkitAuditAnswer = ToolkitAudit.extend(Kept).openapi("ToolkitAuditAnswer", {
  example: EXAMPLE_AUDIT,
});

const Metrics = z.array(z.object({ name: z.string(), value: z.number() })).openapi({
  description:
    "accuracy, precision, recall, f1 (against y_true; none without it), positive_rate, sbi_score, " +
    "total_signif_regions",
});

const mitigation = {
  metrics_before: Metrics,
  metrics_after: Metrics,
  audit_before_mitigation: ToolkitAudit,
  audit_after_mitigation: ToolkitAudit,
  mitigated_preds: z.array(z.looseObject({
    idx: z.number().int().openapi({ description: "the individual's position in its list" }),
    y_pred: z.number().int(),
  })),
  flips_map_html: mapText("an HTML page"),
  flips_map_image: mapText("PNG, base64"),
  ...Kept,
};

/** A mitigation answer of the examples: one flip took region 0 out of the significant ones. */
const EXAMPLE_MITIGATION = {
  metrics_before: [{ name: "accuracy", value: 0.75 }, { name: "sbi_score", value: 0.0123 }],
  metrics_after: [{ name: "accuracy", value: 0.7 }, { name: "sbi_score", value: 0.0041 }],
  audit_before_mitigation: EXAMPLE_AUDIT,
  audit_after_mitigation: {
    ...EXAMPLE_AUDIT,
    sbi_score: 0.0041,
    total_signif_regions: 0,
    stats: [{ idx: 0, stat: 0.0052, is_signif: false }, { idx: 1, stat: 0.0011, is_signif: false }],
  },
  mitigated_preds: [{ idx: 0, y_pred: 1 }, { idx: 1, y_pred: 0 }],
  flips_map_html: "<!doctype html>…",
  flips_map_image: "iVBORw0KGgo…",
};

export const ToolkitRelabelAnswer = z.looseObject(mitigation).openapi("ToolkitRelabelAnswer", {
  example: EXAMPLE_MITIGATION,
});

export const ToolkitThresholdAnswer = z.looseObject({
  ...mitigation,
  threshold_chart_before: mapText("PNG, base64"),
  threshold_chart_after: mapText("PNG, base64"),
  new_thresholds: z.array(z.looseObject({
    idx: z.number().int(),
    threshold: z.number(),
    eq_to_thresh_flip_prob: z.number().openapi({ description: "-1: no tie to break" }),
  })),
}).openapi("ToolkitThresholdAnswer", {
  example: {
    ...EXAMPLE_MITIGATION,
    threshold_chart_before: "iVBORw0KGgo…",
    threshold_chart_after: "iVBORw0KGgo…",
    new_thresholds: [
      { idx: 0, threshold: 0.62, eq_to_thresh_flip_prob: -1 },
      { idx: 1, threshold: 0.5, eq_to_thresh_flip_prob: 0.25 },
    ],
  },
});
