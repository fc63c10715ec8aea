/**
 * `POST .../mitigate/relabel` and `.../mitigate/threshold` (spec 2): audit, mitigate in a worker,
 * audit again with the before-audit's colour cap, and reply with both audits, the flips and the maps.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../http/env.ts";
import { newRouter, securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import {
  MitigationResponse,
  RelabelRequest,
  ThresholdRequest,
  ThresholdResponse,
} from "../spatial/schemas.ts";
import { RELABEL_DESCRIPTION, THRESHOLD_DESCRIPTION } from "./descriptions.ts";
import { taskCollection, TaskParams } from "../spatial/spatial.ts";
import { requireTasks } from "../tasks/tasks.ts";
import {
  auditMaps,
  auditOf,
  auditPayload,
  loadIndividuals,
  mapPoints,
  polygonsOf,
} from "../../services/spatial/audit.ts";
import { auditCap } from "../../core/spatial/maps/map_value.ts";
import type { Mapping } from "../../core/spatial/mapping.ts";
import type { RelabelInput, RelabelResult } from "../../core/spatial/mitigate/relabel.ts";
import type { ThresholdInput, ThresholdResult } from "../../core/spatial/mitigate/threshold_mitigation.ts";
import { scopeOf } from "../../core/spatial/load.ts";
import { restrictRegions, subsetIndividuals } from "../../core/spatial/subset.ts";
import type { Individuals, Regions } from "../../core/spatial/types.ts";
import type { SpatialAuditReply } from "../../workers/spatial.ts";
import { mitigateRelabel, mitigateThreshold } from "../../workers/mitigate.ts";

const NotFound = json(z.object({ detail: z.string() }), "No task document for this collection");

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

/**
 * Notes on the task document what was mitigated, with the whole mapping it read (omitted keys resolved
 * to the fields they read), so write-back knows every field the mitigation used.
 */
async function recordMitigation(c: Context<AppEnv>, name: string, kind: string, mapping: Mapping, n: number) {
  const { store, config } = c.var.deps;
  await store.patch({ db: config.TESSERA_DB, collection: "tasks" }, name, {
    last_mitigation: {
      kind,
      at: new Date().toISOString(),
      by: c.var.principal.sub,
      mapping,
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

const RELABEL = "/api/spatial-hitl/task/{data_collection_name}/mitigate/relabel";
const THRESHOLD = "/api/spatial-hitl/task/{data_collection_name}/mitigate/threshold";

export function spatialMitigationRoutes() {
  const app = newRouter();
  requireTasks(app, RELABEL, THRESHOLD);
  app.openapi(
    securedRoute({
      method: "post",
      path: RELABEL,
      tags: ["spatial-hitl"],
      summary: "Mitigation by relabeling (PROMIS): flip predictions to reduce spatial bias",
      description: RELABEL_DESCRIPTION,
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
      const { ind, mapping } = await loadIndividuals(c, ref, body.mapping, {
        yTrue: body.equal_opp,
        prob: false,
      });
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
      await recordMitigation(c, name, "relabel", mapping, r.nFlips);
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
      path: THRESHOLD,
      tags: ["spatial-hitl"],
      summary: "Mitigation by per-region decision thresholds on y_pred_prob",
      description: THRESHOLD_DESCRIPTION,
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
      const { ind, mapping } = await loadIndividuals(c, ref, body.mapping, {
        yTrue: body.equal_opp,
        prob: true,
      });
      const { pool } = c.var.deps;
      const regions = await pool.run<Regions>("spatial.regions", { ind, polygons: polygonsOf(body) });
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
      await recordMitigation(c, name, "threshold", mapping, r.nFlips);
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
