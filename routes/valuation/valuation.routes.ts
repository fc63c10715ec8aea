/** The data valuation routes of spec 2: correlation matrices and feature importance of a stored dataset. */
import { securedRoute } from "../http/router.ts";
import { detailResponse, errorResponses, json } from "../http/schemas.ts";
import {
  CorrelationRequest,
  CorrelationResponse,
  DatasetQuery,
  FeatureImportanceRequest,
  FeatureImportanceResponse,
} from "./valuation.schemas.ts";

const notFound = detailResponse("No dataset with this id");

const FEATURE_IMPORTANCE_DESCRIPTION =
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

export const correlations = securedRoute({
  role: "reviewer",
  method: "post",
  path: "/api/correlations/analyze",
  tags: ["data-valuation"],
  summary: "Correlation matrices (Pearson, Spearman, Kendall) of a dataset's numeric columns",
  description: "Each pair uses the rows where both columns have a value (as pandas does); Spearman ranks " +
    "ties by their average rank within those rows; Kendall is tau-b. Booleans count as 0/1; text, array " +
    "and object columns are left out.",
  request: {
    query: DatasetQuery,
    body: { content: { "application/json": { schema: CorrelationRequest } } },
  },
  responses: {
    200: json(CorrelationResponse, "The matrices asked for"),
    404: notFound,
    ...errorResponses,
  },
});

export const featureImportance = securedRoute({
  role: "reviewer",
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
    404: detailResponse("No dataset with this id, or no column `target` names (the item names the field)"),
    409: detailResponse(
      "The dataset does not fit: a target with one class or too many, no usable feature, too few rows for " +
        "the folds (the item names the field)",
    ),
    ...errorResponses,
  },
});
