/** Request and response schemas of the data valuation routes (spec 2), with the defaults of the notes. */
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

const Matrix = z.record(z.string(), z.record(z.string(), z.number().nullable())).nullable().openapi({
  description: "column → column → coefficient; null where none exists (a constant column, fewer than two " +
    "complete rows); the whole matrix is null when the method was not asked for",
});

const Shape = z.tuple([z.number().int(), z.number().int()]).openapi({ description: "[rows, columns]" });

export const CorrelationResponse = z.object({
  dataset_shape: Shape,
  feature_count: z.number().int().openapi({ description: "numeric columns used (booleans count as 0/1)" }),
  pearson: Matrix,
  spearman: Matrix,
  kendall: Matrix,
}).openapi("CorrelationResponse");

export const FeatureImportanceRequest = z.object({
  model_names: z.array(z.enum(MODEL_NAMES)).nullable().optional().openapi({
    description: "models to compare; missing, null or empty: all four",
  }),
  target: z.string().min(1).optional().openapi({
    description: "the column to predict; default the dataset's last column",
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
export type FeatureImportanceRequest = z.infer<typeof FeatureImportanceRequest>;

export const FEATURE_IMPORTANCE_DESCRIPTION =
  "Compares classifiers as PyCaret's `compare_models` did: the rows with a target value are split " +
  "(stratified, `train_size`), each model is cross-validated with stratified `folds` on the training split " +
  "and ranked by mean accuracy; the best is trained on the whole training split, scored on the held-out " +
  "rows (`holdout_accuracy`), and its importances are returned (normalised to sum 1, largest first).\n\n" +
  "Preparation: numeric and boolean (0/1) columns keep their values, gaps filled with the training mean; " +
  "text columns are one-hot encoded (`<column>_<value>`), gaps filled with the training mode; a text column " +
  "with more than `max_categories` distinct values that are also more than half its values (an identifier or " +
  "free text) is left out; array and object columns are left out.\n\n" +
  "Models, scikit-learn/LightGBM defaults: `Decision Tree Classifier` (CART, gini, grown until pure), " +
  "`Random Forest Classifier` (100 trees, bootstrap, sqrt(features) per split), `Extra Trees Classifier` " +
  "(100 trees, random thresholds, sqrt(features)), `Light Gradient Boosting Machine` (histogram boosting, " +
  "leaf-wise, 31 leaves, learning rate 0.1, 100 rounds, 20 rows per leaf at least). Thresholds: the boosting " +
  "splits on 255 quantile bins per feature (LightGBM's `max_bin`); the decision tree and random forest split " +
  "exactly (between adjacent distinct training values, up to 65,535 per feature, as scikit-learn) in nodes of " +
  "up to 1,024 rows or where a feature has at most 4 distinct values per node row, and on the 255 quantile " +
  "bins in larger nodes, as LightGBM does; extra trees draw their random thresholds over the distinct " +
  "values. Importances: mean decrease in gini for the trees, total split gain for the boosting.\n\n" +
  "422 when the target has fewer than two classes (or more than 100), or when a class has fewer rows in " +
  "the training split than there are folds.";

export const FeatureImportanceResponse = z.object({
  feature_importance: z.array(z.object({ Feature: z.string(), Importance: z.number() })),
  model_names: z.array(z.string()).openapi({ description: "evaluated models, best first" }),
  accuracy_scores: z.array(z.number()).openapi({
    description: "mean cross-validated accuracy, aligned with model_names",
  }),
  best_model: z.string(),
  dataset_shape: Shape,
  target: z.string().openapi({
    description: "the column predicted: the request's `target`, or the dataset's last column when none was " +
      "given; beyond the spec's fields, so a caller learns which column the default picked",
  }),
  cv_folds: z.number().int(),
  holdout_accuracy: z.number().openapi({ description: "the best model's accuracy on the held-out rows" }),
  elapsed_seconds: z.number(),
}).openapi("FeatureImportanceResponse");
