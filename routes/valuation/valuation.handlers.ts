/** The valuation handlers: the body with its defaults in, the use case's answer out in the spec's names. */
import type { Context } from "hono";
import type { z } from "@hono/zod-openapi";
import type { AppEnv, AppRouteHandler } from "../http/env.ts";
import type * as routes from "./valuation.routes.ts";
import { CorrelationRequest, FeatureImportanceRequest } from "./valuation.schemas.ts";
import { analyzeCorrelations } from "../../services/valuation/correlations.ts";
import { analyzeFeatureImportance } from "../../services/valuation/feature_importance.ts";

/** The body, defaults applied also when it was sent empty or without a JSON content type (it is optional). */
function bodyOf<T extends z.ZodType>(c: Context<AppEnv>, schema: T): z.infer<T> {
  return schema.parse((c.req.valid as (t: "json") => unknown)("json") ?? {});
}

export const correlations: AppRouteHandler<typeof routes.correlations> = async (c) => {
  const body = bodyOf(c, CorrelationRequest);
  const { shape, featureCount, matrices } = await analyzeCorrelations(c.var.deps, {
    datasetId: c.req.valid("query")["dataset-id"],
    methods: {
      pearson: body.include_pearson,
      spearman: body.include_spearman,
      kendall: body.include_kendall,
    },
  });
  return c.json({ dataset_shape: shape, feature_count: featureCount, ...matrices }, 200);
};

export const featureImportance: AppRouteHandler<typeof routes.featureImportance> = async (c) => {
  const body = bodyOf(c, FeatureImportanceRequest);
  const out = await analyzeFeatureImportance(c.var.deps, {
    datasetId: c.req.valid("query")["dataset-id"],
    models: body.model_names,
    target: body.target,
    trainSize: body.train_size,
    folds: body.folds,
    seed: body.seed,
    maxCategories: body.max_categories,
  });
  return c.json({
    feature_importance: out.importance.map((f) => ({ Feature: f.feature, Importance: f.importance })),
    model_names: out.models,
    accuracy_scores: out.accuracies,
    best_model: out.best,
    dataset_shape: out.shape,
    target: out.target,
    cv_folds: out.folds,
    holdout_accuracy: out.holdoutAccuracy,
    elapsed_seconds: out.elapsedSeconds,
  }, 200);
};
