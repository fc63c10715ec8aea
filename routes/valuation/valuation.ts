/**
 * Data valuation routes of spec 2: correlation matrices and feature importance of a stored dataset.
 * Each loads the dataset once into typed columns (in shared memory) and hands the work to the pool.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../http/env.ts";
import { newRouter, securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import {
  CorrelationRequest,
  CorrelationResponse,
  DatasetQuery,
  FEATURE_IMPORTANCE_DESCRIPTION,
  FeatureImportanceRequest,
  FeatureImportanceResponse,
} from "./schemas.ts";
import { NotFoundError } from "../../core/errors.ts";
import { sharedAlloc } from "../../core/memory.ts";
import { type Frame, FrameBuilder, type NumericColumn } from "../../core/stats/frame.ts";
import { type Matrix, type Method, METHODS } from "../../core/stats/correlation.ts";
import { MODEL_NAMES } from "../../core/learn/models.ts";
import { targetName } from "../../core/learn/prepare.ts";
import { findDataset } from "../../services/datasets/registry.ts";
import { correlateOnPool, featureImportanceOnPool } from "../../workers/valuation.ts";

const BATCH = 5000;
const NotFound = json(z.object({ detail: z.string() }), "No dataset with this id");

/** Streams the dataset named by `dataset-id` into a frame (404 when it is not catalogued). */
async function loadFrame(c: Context<AppEnv>, id: string): Promise<Frame> {
  const { store, config } = c.var.deps;
  const rec = await findDataset(store, config.TESSERA_DB, id);
  if (!rec) throw new NotFoundError(`no dataset '${id}'`);
  const builder = new FrameBuilder();
  for await (
    const batch of store.stream({ db: rec.database, collection: rec.collection }, { batchSize: BATCH })
  ) {
    builder.add(batch);
  }
  return builder.finish(sharedAlloc);
}

/** A matrix as column → column → coefficient, NaN as null. */
function nested(names: string[], m: Matrix): Record<string, Record<string, number | null>> {
  const k = names.length;
  return Object.fromEntries(names.map((a, i) => [
    a,
    Object.fromEntries(names.map((b, j) => [b, Number.isNaN(m[i * k + j]) ? null : m[i * k + j]])),
  ]));
}

/** The body, defaults applied also when it was sent empty or without a JSON content type. */
function bodyOf<T extends z.ZodType>(c: Context<AppEnv>, schema: T): z.infer<T> {
  return schema.parse((c.req.valid as (t: "json") => unknown)("json") ?? {});
}

export function valuationRoutes() {
  const app = newRouter();

  app.openapi(
    securedRoute({
      method: "post",
      path: "/api/correlations/analyze",
      tags: ["data-valuation"],
      summary: "Correlation matrices (Pearson, Spearman, Kendall) of a dataset's numeric columns",
      description:
        "Each pair uses the rows where both columns have a value (as pandas does); Spearman ranks " +
        "ties by their average rank within those rows; Kendall is tau-b. Booleans count as 0/1; text, array " +
        "and object columns are left out.",
      request: {
        query: DatasetQuery,
        body: { content: { "application/json": { schema: CorrelationRequest } } },
      },
      responses: {
        200: json(CorrelationResponse, "The matrices asked for"),
        404: NotFound,
        ...errorResponses,
      },
    }),
    async (c) => {
      const body = bodyOf(c, CorrelationRequest);
      const frame = await loadFrame(c, c.req.valid("query")["dataset-id"]);
      const numeric = frame.columns.filter((col): col is NumericColumn => col.kind === "numeric");
      const asked: Record<Method, boolean> = {
        pearson: body.include_pearson,
        spearman: body.include_spearman,
        kendall: body.include_kendall,
      };
      const methods = METHODS.filter((m) => asked[m]);
      const names = numeric.map((col) => col.name);
      const matrices = methods.length
        ? await correlateOnPool(c.var.deps.pool, numeric.map((col) => col.values), methods)
        : {};
      const out = (m: Method) => (matrices[m] ? nested(names, matrices[m]) : null);
      return c.json({
        dataset_shape: [frame.rows, frame.columns.length] as [number, number],
        feature_count: numeric.length,
        pearson: out("pearson"),
        spearman: out("spearman"),
        kendall: out("kendall"),
      }, 200);
    },
  );

  app.openapi(
    securedRoute({
      method: "post",
      path: "/api/feature-importance/analyze",
      tags: ["data-valuation"],
      summary: "Feature importance of the best of up to four classifiers",
      description: FEATURE_IMPORTANCE_DESCRIPTION,
      request: {
        query: DatasetQuery,
        body: { content: { "application/json": { schema: FeatureImportanceRequest } } },
      },
      responses: {
        200: json(FeatureImportanceResponse, "Ranked features, models by accuracy, the best model"),
        404: NotFound,
        ...errorResponses,
      },
    }),
    async (c) => {
      const t0 = performance.now();
      const body = bodyOf(c, FeatureImportanceRequest);
      const models = body.model_names?.length
        ? MODEL_NAMES.filter((m) => body.model_names!.includes(m))
        : MODEL_NAMES;
      const frame = await loadFrame(c, c.req.valid("query")["dataset-id"]);
      const shape = [frame.rows, frame.columns.length] as [number, number];
      const { comparison } = await featureImportanceOnPool(c.var.deps.pool, frame, {
        target: body.target,
        trainSize: body.train_size,
        folds: body.folds,
        seed: body.seed,
        maxCategories: body.max_categories,
      }, models);
      return c.json({
        feature_importance: comparison.importance.map((f) => ({
          Feature: f.feature,
          Importance: f.importance,
        })),
        model_names: comparison.models,
        accuracy_scores: comparison.accuracies,
        best_model: comparison.best,
        dataset_shape: shape,
        target: targetName(frame, body.target),
        cv_folds: body.folds,
        holdout_accuracy: comparison.holdoutAccuracy,
        elapsed_seconds: Math.round(performance.now() - t0) / 1000,
      }, 200);
    },
  );
  return app;
}
