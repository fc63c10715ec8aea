/** Request and response schemas of the data valuation routes (spec 2), with their defaults. */
import { z } from "@hono/zod-openapi";
import { MODEL_NAMES } from "../../core/learn/models.ts";

export const DatasetQuery = z.object({
  "dataset-id": z.string().min(1).openapi({ description: "the dataset (its collection name)" }),
});

export const CorrelationRequest = z.object({
  include_pearson: z.boolean().default(true),
  include_spearman: z.boolean().default(true),
  include_kendall: z.boolean().default(false).openapi({
    description: "Kendall's tau-b (ties accounted for)",
  }),
}).strict().openapi("CorrelationRequest");

const Matrix = z.record(z.string(), z.record(z.string(), z.number().nullable())).openapi(
  "CorrelationMatrix",
  {
    description: "A square matrix over the numeric columns: column → column → coefficient in [-1, 1], 1 on " +
      "the diagonal; null where none exists (a constant column, fewer than two complete rows)",
  },
);
const MatrixOrNull = (method: string) =>
  z.union([Matrix, z.null()]).openapi({
    description: `The ${method} matrix; null when it was not asked for`,
  });

const Shape = z.tuple([z.number().int(), z.number().int()]).openapi({
  description: "[rows, columns] of the whole dataset",
  minItems: 2,
  maxItems: 2,
});

export const CorrelationResponse = z.object({
  dataset_shape: Shape,
  feature_count: z.number().int().openapi({
    description: "numeric columns used (booleans count as 0/1): the keys of each matrix",
  }),
  pearson: MatrixOrNull("Pearson"),
  spearman: MatrixOrNull("Spearman (average ranks for ties)"),
  kendall: MatrixOrNull("Kendall tau-b"),
}).openapi("CorrelationResponse");

export const FeatureImportanceRequest = z.object({
  model_names: z.array(z.enum(MODEL_NAMES)).nullable().optional().openapi({
    description: "models to compare; missing, null or empty: all four",
  }),
  target: z.string().min(1).optional().openapi({
    description: "the column to predict; default the dataset's recorded target (the import's `target`, " +
      "else the last column of its first import; columns added later, like an approved `is_anomaly`, " +
      "do not change it)",
  }),
  train_size: z.number().gt(0).lt(1).default(0.7).openapi({
    description: "share of rows in the (stratified) training split; the rest is held out",
  }),
  folds: z.number().int().min(2).max(50).default(10).openapi({
    description: "stratified cross-validation folds on the training split",
  }),
  seed: z.number().int().min(0).max(2 ** 32 - 1).default(42).openapi({
    description: "seed of the split, the folds and the models: the same seed gives the same answer",
  }),
  max_categories: z.number().int().min(2).max(1000).default(25).openapi({
    description: "text columns with more levels keep the most frequent ones and a `<column>_other` column",
  }),
}).strict().openapi("FeatureImportanceRequest");

const ModelName = z.enum(MODEL_NAMES);

export const FeatureImportanceResponse = z.object({
  feature_importance: z.array(
    z.object({
      Feature: z.string().openapi({
        description: "a prepared feature: a numeric or boolean column, or `<column>_<value>` of a text one",
      }),
      Importance: z.number().openapi({
        description: "in [0, 1]; the importances sum to 1 (all 0 when the best model made no split)",
      }),
    }).openapi("FeatureImportanceItem"),
  ).openapi({ description: "the best model's features, largest importance first" }),
  model_names: z.array(ModelName).openapi({ description: "evaluated models, best first" }),
  accuracy_scores: z.array(z.number()).openapi({
    description: "mean cross-validated accuracy, aligned with model_names",
  }),
  best_model: ModelName.openapi({ description: "the most accurate model (model_names[0])" }),
  dataset_shape: Shape,
  target: z.string().openapi({
    description: "the column predicted: the request's `target`, or the dataset's recorded target when none " +
      "was given; beyond the spec's fields, so a caller learns which column the default picked",
  }),
  cv_folds: z.number().int().openapi({ description: "the cross-validation folds (the request's `folds`)" }),
  holdout_accuracy: z.number().openapi({ description: "the best model's accuracy on the held-out rows" }),
  elapsed_seconds: z.number().openapi({ description: "time the analysis took, loading included" }),
}).openapi("FeatureImportanceResponse");
