/**
 * `POST .../mitigate/relabel` and `.../mitigate/threshold` (spec 2): audit, mitigate in a worker,
 * audit again with the before-audit's colour cap, and reply with both audits, the flips and the maps.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AppEnv, newRouter, securedRoute } from "./env.ts";
import { errorResponses, json } from "./schemas.ts";
import { RelabelRequest, ThresholdRequest } from "./spatial_schemas.ts";
import { taskCollection, TaskParams } from "./spatial.ts";
import {
  auditMaps,
  auditOf,
  auditPayload,
  loadIndividuals,
  mappingOf,
  mapPoints,
  polygonsOf,
} from "./spatial_run.ts";
import { auditCap } from "../core/spatial/maps/map_value.ts";
import { SOLVER_STATUS } from "../core/spatial/mitigate/status.ts";
import type { RelabelInput, RelabelResult } from "../core/spatial/mitigate/relabel.ts";
import type { ThresholdInput, ThresholdResult } from "../core/spatial/mitigate/threshold.ts";
import { scopeOf } from "../core/spatial/load.ts";
import { restrictRegions, subsetIndividuals } from "../core/spatial/subset.ts";
import type { Individuals, Regions } from "../core/spatial/types.ts";
import type { SpatialAuditReply } from "../workers/spatial.ts";
import { mitigateRelabel, mitigateThreshold } from "../workers/mitigate.ts";

const statusTable = Object.entries(SOLVER_STATUS).map(([k, v]) => `${k} = ${v}`).join("; ");
const NotFound = json(z.object({ detail: z.string() }), "No task document for this collection");

/** What the relabel and threshold descriptions share: statuses, work_limit, the methods. */
const METHOD_NOTES =
  `Solver status codes (solver_status_code, solver_status_message): ${statusTable}. Every ` +
  "status answers 200; only 0 and 1 come with flips (1: the best solution found when the limit stopped the " +
  "search, applied, with a proven lower bound in `bound` for the exact method). 3 cannot come from a " +
  "request: the rate window always contains the current number of positives and zero flips are always " +
  "within the budget, so a solver never meets an infeasible model. work_limit is seconds of wall-clock " +
  "solver time: HiGHS's time_limit for approx, the deadline of the exact search. " +
  "approx=true (PROMIS-Approx): the notes' LP on HiGHS, real δ with newP integer. approx=false " +
  "(PROMIS-Exact, integer flips): with disjoint regions a branch and bound over newP whose every fixed " +
  "newP is solved exactly (greedy over marginal gains), which proves optimality unless the limit stops it; " +
  "with overlapping regions a depth-first branch and bound over groups of interchangeable individuals, " +
  "which proves optimality only on small instances and otherwise answers status 1 with the best found " +
  "and the root node's bound. Beyond 24 such groups, half of work_limit first goes to the approx LP, " +
  "whose rounded solution seeds that search. Individuals in no region: with disjoint regions they never " +
  "flip (the notes' model has one δ per region, newP = P + Σ δ_i); with overlapping regions every " +
  "individual has its own δ_j, so they can. They count in N and P either way.";

/** The relabel-specific part: from δ to flips. */
const ROUNDING =
  "From δ to flips: disjoint regions round each region's δ half to even, overlapping regions " +
  "each individual's δ_j (the notes' rule), and each region flips its first members by collection order. " +
  "When that rounding would exceed the flip budget or leave the rate window (possible with the LP's real " +
  "δ), the values are instead truncated toward zero and the missing units handed out one at a time to the " +
  "largest fractional remainders (on ties the lowest region, or with overlapping regions the group whose " +
  "first member comes first) while the budget allows, so n_flips ≤ " +
  "flip_budget and the new positives stay in new_positives_window always. Exact solutions are integers " +
  "and apply as they are.";

const MitigationResponse = z.object({
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

const ThresholdResponse = MitigationResponse.extend({
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

/** The changed predictions of a mitigation, as the reply lists them. */
function changedPreds(ind: Individuals, flipped: Int32Array, preds: Uint8Array) {
  return Array.from(flipped, (i) => ({ idx: i, doc_id: ind.docIds[i], y_pred: preds[i] }));
}

/** The flips map: flipped individuals coloured by their new prediction over the after-audit's regions. */
function flipsMaps(
  c: Context<AppEnv>,
  ind: Individuals,
  after: SpatialAuditReply,
  flipped: Int32Array,
  preds: Uint8Array,
  opts: { full: boolean; seed: number; cap: number; title: string },
) {
  const cls = Uint8Array.from(flipped, (i) => preds[i]);
  const { points, drawnOf } = mapPoints(ind, flipped, cls, opts.full, opts.seed);
  const { world_max: _w, ...audit } = after.audit;
  return c.var.deps.pool.run<{ flips_map_html: string; flips_map_image: string }>("maps.flips", {
    regions: after.regions,
    audit,
    points,
    options: { title: opts.title, drawnOf, cap: opts.cap },
  });
}

/** Notes on the task document what was mitigated, so write-back knows the fields its mapping uses. */
async function recordMitigation(
  c: Context<AppEnv>,
  name: string,
  kind: string,
  body: RelabelRequest,
  n: number,
) {
  const { store, config } = c.var.deps;
  await store.patch({ db: config.TESSERA_DB, collection: "tasks" }, name, {
    last_mitigation: {
      kind,
      at: new Date().toISOString(),
      by: c.var.principal.sub,
      mapping: mappingOf(body),
      n_flips: n,
    },
  });
}

/** The fields relabel and threshold replies share. */
function solverFields(r: RelabelResult | ThresholdResult, regions: Regions) {
  return {
    metrics_before: r.metricsBefore,
    metrics_after: r.metricsAfter,
    solver_status_code: r.status.code,
    solver_status_message: r.status.message,
    solver_detail: r.status.detail,
    objective: r.objective,
    bound: r.bound,
    regions_delta: Array.from(r.regionsDelta, (delta, idx) => ({ idx, region_id: regions.ids[idx], delta })),
    n_flips: r.nFlips,
    positive_rate_before: r.positiveRateBefore,
    positive_rate_after: r.positiveRateAfter,
    flip_budget: r.flipBudget,
    new_positives_window: r.newPositivesWindow,
    solver_seconds: r.seconds.solve,
  };
}

export function spatialMitigationRoutes() {
  const app = newRouter();
  app.openapi(
    securedRoute({
      method: "post",
      path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/relabel",
      tags: ["spatial-hitl"],
      summary: "Mitigation by relabeling (PROMIS): flip predictions to reduce spatial bias",
      description: `${METHOD_NOTES} ${ROUNDING}`,
      request: {
        params: TaskParams,
        body: { content: { "application/json": { schema: RelabelRequest } }, required: true },
      },
      responses: {
        200: json(MitigationResponse, "Both audits, the flips and the maps"),
        404: NotFound,
        ...errorResponses,
      },
    }),
    async (c) => {
      const t0 = performance.now();
      const { data_collection_name: name } = c.req.valid("param");
      const body = c.req.valid("json");
      const ref = await taskCollection(c, name);
      const ind = await loadIndividuals(c, ref, mappingOf(body), { yTrue: body.equal_opp, prob: false });
      const before = await auditOf(c, ind, body);
      const input: RelabelInput = {
        yPred: ind.yPred,
        yTrue: ind.yTrue,
        scope: before.scope,
        regions: before.regions,
        approx: body.approx,
        budget: body.budget_constr,
        prTol: body.pr_constr,
        workLimitSeconds: body.work_limit,
      };
      const r = await mitigateRelabel(c.var.deps.pool, input);
      const prepared = { scope: before.scope, regions: before.regions };
      const after = await auditOf(c, ind, body, { yPred: r.mitigatedPreds, prepared });
      const cap = auditCap(before.audit);
      const common = { full: body.full_distribution, seed: body.seed, cap };
      const [mapsBefore, mapsAfter, flips] = await Promise.all([
        auditMaps(c, ind, before, ind.yPred, { ...common, title: `Before mitigation: ${name}` }),
        auditMaps(c, ind, after, r.mitigatedPreds, { ...common, title: `After relabeling: ${name}` }),
        flipsMaps(c, ind, after, r.flipped, r.mitigatedPreds, { ...common, title: `Flips: ${name}` }),
      ]);
      await recordMitigation(c, name, "relabel", body, r.nFlips);
      return c.json({
        ...solverFields(r, before.regions),
        audit_before_mitigation: auditPayload(before, mapsBefore),
        audit_after_mitigation: auditPayload(after, mapsAfter),
        mitigated_preds: changedPreds(ind, r.flipped, r.mitigatedPreds),
        ...flips,
        elapsed_ms: Math.round(performance.now() - t0),
      }, 200);
    },
  );

  app.openapi(
    securedRoute({
      method: "post",
      path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/threshold",
      tags: ["spatial-hitl"],
      summary: "Mitigation by per-region decision thresholds on y_pred_prob",
      description: `Splits the individuals (train_ratio, stratified on y_true when present, else y_pred; ` +
        `random_state), fits per-region thresholds on the train part and predicts the test part; audits and ` +
        `metrics are of the test part. The fit uses the solver's δ per region: real for approx=true, the ` +
        `exact integer optimum for approx=false (no rounding either way: the thresholds take fractions). ` +
        METHOD_NOTES,
      request: {
        params: TaskParams,
        body: { content: { "application/json": { schema: ThresholdRequest } }, required: true },
      },
      responses: {
        200: json(ThresholdResponse, "Thresholds, both audits of the test part, charts"),
        404: NotFound,
        ...errorResponses,
      },
    }),
    async (c) => {
      const t0 = performance.now();
      const { data_collection_name: name } = c.req.valid("param");
      const body = c.req.valid("json");
      const ref = await taskCollection(c, name);
      const ind = await loadIndividuals(c, ref, mappingOf(body), { yTrue: body.equal_opp, prob: true });
      const { pool } = c.var.deps;
      const regions = await pool.run<Regions>("spatial.regions", {
        ind,
        polygons: polygonsOf(body),
        seed: body.seed,
      });
      const input: ThresholdInput = {
        yPred: ind.yPred,
        yTrue: ind.yTrue,
        prob: ind.prob!,
        regions,
        equalOpp: body.equal_opp,
        approx: body.approx,
        budget: body.budget_constr,
        prTol: body.pr_constr,
        workLimitSeconds: body.work_limit,
        defaultBoundary: body.default_boundary,
        trainRatio: body.train_ratio,
        stratified: body.stratified,
        randomState: body.random_state,
      };
      const r = await mitigateThreshold(pool, input);
      // the audits are of the test part, over the same regions as the fit
      const test = subsetIndividuals(ind, r.test);
      const scope = scopeOf(test, body.equal_opp);
      const prepared = {
        scope,
        regions: restrictRegions(regions, Int32Array.from(scope, (j) => r.test[j]), ind.n),
      };
      const testPreds = Uint8Array.from(r.test, (i) => r.mitigatedPreds[i]);
      const before = await auditOf(c, test, body, { prepared });
      const after = await auditOf(c, test, body, { prepared, yPred: testPreds });
      const cap = auditCap(before.audit);
      const common = { full: body.full_distribution, seed: body.seed, cap };
      const [mapsBefore, mapsAfter, flips, charts] = await Promise.all([
        auditMaps(c, test, before, test.yPred, { ...common, title: `Test part before: ${name}` }),
        auditMaps(c, test, after, testPreds, { ...common, title: `Test part after thresholds: ${name}` }),
        flipsMaps(c, ind, after, r.flipped, r.mitigatedPreds, { ...common, title: `Flips: ${name}` }),
        pool.run<{ threshold_chart_before: string; threshold_chart_after: string }>("maps.thresholds", {
          before: before.audit,
          after: after.audit,
          thresholds: r.newThresholds.map((t) => t.threshold),
          defaultBoundary: body.default_boundary,
          cap,
        }),
      ]);
      await recordMitigation(c, name, "threshold", body, r.nFlips);
      return c.json({
        ...solverFields(r, regions),
        audit_before_mitigation: auditPayload(before, mapsBefore),
        audit_after_mitigation: auditPayload(after, mapsAfter),
        mitigated_preds: changedPreds(ind, r.flipped, r.mitigatedPreds),
        ...flips,
        ...charts,
        new_thresholds: r.newThresholds,
        train_size: r.train.length,
        test_size: r.test.length,
        elapsed_ms: Math.round(performance.now() - t0),
      }, 200);
    },
  );
  return app;
}
