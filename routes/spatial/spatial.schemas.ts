/**
 * Request and response schemas of the spatial audit routes (spec 2), with the defaults of
 * docs/spatial-fairness.md. The fields the audit shares with the mitigations live here too
 * (`auditFields`, `withAuditRules`, `toAuditSettings`), so each is declared and checked once.
 */
import { z } from "@hono/zod-openapi";
import { Detail, json } from "../http/schemas.ts";
import { CollectionName } from "../datasets/datasets.schemas.ts";
import { MAPPING_KEYS } from "../../core/spatial/mapping.ts";
import { MAX_SEED, numpySeedProblem } from "../../core/spatial/audit.ts";
import type { AuditSettings } from "../../services/spatial/audit.ts";
import { RUNS_KEPT } from "../../services/spatial/runs.ts";

/** `{data_collection_name}`: the task document, and through it the collection, a route works on. */
export const TaskParams = z.object({ data_collection_name: CollectionName });

/** The 404 of a collection without a task document. */
export const TaskNotFound = json(Detail, "No task document for this collection");

const Point = z.tuple([
  z.number().min(-180).max(180).openapi({ description: "longitude" }),
  z.number().min(-90).max(90).openapi({ description: "latitude" }),
]).openapi({ minItems: 2, maxItems: 2 }); // a tuple's length, which the generated document leaves out

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
  seed: z.number().int().min(0).max(MAX_SEED).default(42).openapi({
    description: "seed of the Monte Carlo worlds, of which individuals the distribution map draws " +
      'when it samples, and (relabel) of flip_order "random" and its tie-breaks. k-means regions do ' +
      "not use it: they use a fixed seed (42), as the reference does, so a collection's regions never " +
      "depend on the request. With rng=numpy, seed + n_worlds - 1 " +
      "must not pass 4294967295",
  }),
  rng: z.enum(["fast", "numpy"]).default("fast").openapi({
    description: "fast: one exact Binomial draw per membership signature per world; numpy: the reference's " +
      "MT19937 stream (seed + w per world, one double per individual in collection order) bit for bit",
  }),
  include_maps: z.boolean().default(true).openapi({
    description: "false leaves every map field (*_html, *_image, threshold_chart_*, in the audits too) out " +
      "of the answer; the stored run keeps them, each served by " +
      "GET .../runs/{run_id}/maps/{name}",
  }),
};

type AuditFields = z.infer<z.ZodObject<typeof auditFields>>;

/**
 * The rule over two fields that the field schemas cannot say: rng "numpy" seeds world w with seed + w,
 * which numpy allows up to 2^32 - 1. Checked only once every field is valid, so a request never gets
 * this issue beside another.
 */
export function withAuditRules<T extends z.ZodType<AuditFields>>(schema: T): T {
  return schema.superRefine((v, ctx) => {
    const message = numpySeedProblem(v.rng, v.seed, v.n_worlds);
    if (message) ctx.addIssue({ code: "custom", path: ["seed"], message });
  }, { when: (payload) => payload.issues.length === 0 });
}

/** The audit settings of a validated audit, relabel or threshold body, as the services take them. */
export function toAuditSettings(body: AuditFields): AuditSettings {
  return {
    nWorlds: body.n_worlds,
    signifLevel: body.signif_level,
    equalOpp: body.equal_opp,
    fullDistribution: body.full_distribution,
    polygons: body.region?.map((r) => r.polygon) ?? null,
    mapping: body.mapping,
    seed: body.seed,
    rng: body.rng,
    includeMaps: body.include_maps,
  };
}

export const AuditRequest = withAuditRules(z.object(auditFields).strict()).openapi("AuditRequest");

export const DatasetColumns = z.object({
  data_collection_name: z.string(),
  database_name: z.string(),
  sampled: z.number().int().openapi({
    description: "documents profiled (the first ones in collection order)",
  }),
  columns: z.array(z.object({
    name: z.string(),
    type: z.string().openapi({ description: "the value type the sampled documents hold, or mixed" }),
    count: z.number().int().openapi({ description: "sampled documents with a non-null value" }),
    example: z.unknown().openapi({ description: "the first non-null value" }),
  })),
  mapping_defaults: z.record(z.string(), z.string().nullable()).openapi({
    description: "per mapping key, the field an audit reads when its request leaves the key out (null: " +
      "no such field, the slot is absent)",
  }),
}).openapi("DatasetColumns");

/** A map field of an answer: `what` it is; absent when the request set include_maps to false. */
export const mapField = (what: string) =>
  z.string().optional().openapi({
    description: `${what}; left out when include_maps is false (the run keeps it: ` +
      "GET .../runs/{run_id}/maps/{name}, name the field's name, inside an audit of a mitigation " +
      "prefixed by the audit's, e.g. audit_after_mitigation.fair_map_html)",
  });

/** `run_id` of an answer. */
export const runIdField = z.string().openapi({
  description: `the id of the run this answer is kept as (GET .../runs/{run_id}); a task keeps its last ` +
    `${RUNS_KEPT} runs, older ones are removed`,
});

export const RegionStat = z.object({
  idx: z.number().int().openapi({ description: "the region's position in the sorted list of region ids" }),
  region_id: z.number().int(),
  n: z.number().int().openapi({ description: "individuals in scope in the region" }),
  p: z.number().int().openapi({ description: "of them, predicted positive" }),
  rate: z.number().nullable().openapi({ description: "p / n; null for an empty region" }),
  raw_stat: z.number().openapi({ description: "log-likelihood ratio S = max(0, l1 - l0)" }),
  stat: z.number().openapi({ description: "normalised statistic s = (l1 - l0)/|l0| in [0, 1]" }),
  p_value: z.number().openapi({ description: "Monte Carlo p-value (1 + #{w: M_w >= s}) / (W + 1)" }),
  is_signif: z.boolean().openapi({
    description: "s >= signif_thresh and s > 0: a region with no difference at all (s = 0) is never " +
      "significant, even when every world maximum is 0 too (P = 0 or P = N, so signif_thresh = 0)",
  }),
}).openapi("RegionStat");

/** An audit's statistics and maps: the audit answer without its timing, and each audit of a mitigation. */
export const AuditPayload = z.object({
  sbi_score: z.number().openapi({ description: "mean s over the non-empty regions" }),
  signif_thresh: z.number().openapi({
    description: "T: the world maxima sorted descending, at 0-based position floor(signif_level·W)",
  }),
  total_signif_regions: z.number().int(),
  stats: z.array(RegionStat),
  n_individuals: z.number().int().openapi({ description: "N: individuals in scope" }),
  n_positives: z.number().int().openapi({ description: "P: of them, predicted positive" }),
  rng: z.enum(["fast", "numpy"]),
  seed: z.number().int(),
  n_worlds: z.number().int(),
  signif_level: z.number(),
  regions_source: z.enum(["region_ids", "polygons", "kmeans"]),
  unassigned_individuals: z.number().int().openapi({ description: "individuals in scope inside no polygon" }),
  fair_map_html: mapField("an HTML page"),
  fair_map_image: mapField("PNG, base64"),
  distribution_map_html: mapField("an HTML page"),
  distribution_map_image: mapField("PNG, base64"),
}).openapi("AuditPayload");

/** Where a request's time went, seconds per phase (services/spatial/phases.ts). */
export const Phases = z.object({
  load: z.number().openapi({
    description: "reading the mapped columns (0 when the prepared dataset was kept)",
  }),
  prepare: z.number().openapi({ description: "scope, regions and the Monte Carlo plan" }),
  worlds: z.number().openapi({ description: "the Monte Carlo worlds and their summary" }),
  solve: z.number().openapi({ description: "the mitigation's solver (0 for an audit)" }),
  maps: z.number().openapi({ description: "display hulls, maps and charts" }),
}).openapi("Phases", {
  description:
    "seconds per phase of the request; work done side by side (a mitigation's before-audit and its " +
    "maps run beside the solver) counts to each of its phases, so they may add up to more than elapsed_ms",
});

export const AuditResponse = AuditPayload.extend({
  run_id: runIdField,
  phases: Phases,
  elapsed_ms: z.number().openapi({ description: "the whole request, loading and maps included" }),
}).openapi("AuditResponse");

/** `{run_id}`: a kept run of the task. */
export const RunParams = TaskParams.extend({
  run_id: z.string().min(1).max(128).openapi({ description: "the `run_id` an answer gave" }),
});

/** `{name}`: one map of a run. */
export const RunMapParams = RunParams.extend({
  name: z.string().min(1).max(128).openapi({
    description: "a map field of the run's answer: fair_map_html, fair_map_image, distribution_map_html, " +
      "distribution_map_image (an audit); audit_before_mitigation.fair_map_html and the like, " +
      "flips_map_html, flips_map_image, threshold_chart_before, threshold_chart_after (a mitigation). " +
      "The run list names each run's maps",
  }),
});

export const RunQuery = z.object({
  include_maps: z.enum(["true", "false"]).default("true").openapi({
    description: "false leaves the map fields out of the stored answer",
  }),
});

const RunKind = z.enum(["audit", "relabel", "threshold"]);

const RunSummary = z.record(z.string(), z.unknown()).openapi({
  description: "an audit: sbi_score, total_signif_regions, n_individuals, n_positives, n_worlds, " +
    "signif_level, regions_source; a mitigation: solver_status_code, solver_status_message, objective, " +
    "n_flips, flip_budget, positive_rate_before, positive_rate_after, sbi_score_before, sbi_score_after, " +
    "total_signif_regions_before, total_signif_regions_after, n_predictions (lines of mitigated_preds), " +
    "and for threshold train_size, test_size",
});

/** Where a running mitigation is (services/spatial/live_runs.ts: RunPhase). */
const RunPhase = z.enum([
  "starting",
  "loading",
  "preparing",
  "solving",
  "zero gap",
  "column generation",
  "integer D",
  "exact search",
  "auditing after",
  "saving",
]).openapi({
  description: "running runs only: loading the rows, preparing the regions (and the before-audit), the " +
    "solver (solving; then its own phases: zero gap, column generation, integer D, exact search), the audit " +
    "after and its maps, saving the run",
});

export const RunEntry = z.object({
  run_id: z.string(),
  kind: RunKind,
  state: z.enum(["running", "complete"]).openapi({
    description: "running: a mitigation whose request is still computing it (cancel it with POST " +
      ".../runs/{run_id}/cancel; GET .../runs/{run_id} answers 409 until it is complete); complete: kept",
  }),
  created_at: z.string(),
  requested_by: z.string().nullable(),
  summary: RunSummary,
  maps: z.array(z.string()).openapi({ description: "the names GET .../runs/{run_id}/maps/{name} serves" }),
  started_at: z.string().optional().openapi({ description: "running runs only: when its request started" }),
  phase: RunPhase.optional(),
  objective: z.number().nullable().optional().openapi({
    description: "running runs only: the solver's best objective so far (null until it has one)",
  }),
  bound: z.number().nullable().optional().openapi({
    description: "running runs only: the solver's best proven lower bound so far (null until it has one)",
  }),
  updated_at: z.string().optional().openapi({
    description: "running runs only: when its progress was last written (at most every 0.5 s)",
  }),
}).openapi("RunEntry");

export const RunList = z.array(RunEntry).openapi("RunList", {
  description:
    "the running mitigations first, then the kept runs, each newest first; a task keeps its last " +
    `${RUNS_KEPT} runs (saving one more removes the oldest). A running run whose server stopped without ` +
    "finishing it drops out of the list within 15 s",
});

export const CancelResponse = z.object({
  run_id: z.string(),
  kind: RunKind,
  state: z.enum(["cancelled", "cancelling"]).openapi({
    description: "cancelled: it has stopped and nothing of its run is left (its own request answered 409); " +
      "cancelling: asked, but it had not stopped within 3 s (another server runs it, or a task that cannot " +
      "be interrupted holds it: WORKERS=0)",
  }),
  cancelled_at: z.string(),
}).openapi("CancelResponse");

/** What a cancelled mitigation's own request answers. */
const CancelledBody = z.object({
  detail: z.string(),
  run_id: z.string(),
  state: z.literal("cancelled"),
}).openapi("Cancelled");

export const Cancelled = json(
  CancelledBody,
  "Cancelled (POST .../runs/{run_id}/cancel) before it finished: nothing of its run was kept",
);

const MISMATCH = "the task's documents do not fit the request (none at all, a mapped field missing or " +
  "not of its kind, no individual in scope, a field the documents hold already, a frozen region that is " +
  "none of the audit's regions): the items name the field";

/** A 409 of a route over a task's documents: the data decides it, so /openapi.json cannot rule it out. */
export const DataMismatch = json(Detail, `Refused because ${MISMATCH}`);

/** A mitigation's 409: cancelled, or refused by the task's documents. */
export const CancelledOrMismatch = json(
  z.union([CancelledBody, Detail]),
  "Cancelled (POST .../runs/{run_id}/cancel) before it finished, and nothing of its run was kept; or " +
    `refused because ${MISMATCH}`,
);

export const StoredRun = z.looseObject({
  run_id: z.string(),
  run: z.object({
    kind: RunKind,
    created_at: z.string(),
    requested_by: z.string().nullable(),
    request: z.unknown().openapi({ description: "the request body as validated, defaults filled" }),
    summary: RunSummary,
    maps: z.array(z.string()),
  }).openapi({ description: "what the run was; not part of the original answer" }),
}).openapi("StoredRun", {
  description: "the answer the run gave, every field as it was (an AuditResponse for an audit, a " +
    "MitigationResponse for relabel, a ThresholdResponse for threshold; mitigated_preds complete), with " +
    "its maps unless include_maps=false, and `run`",
});
