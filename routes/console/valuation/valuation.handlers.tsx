/**
 * Data valuation in the console: choose a dataset, and see its correlation heatmap (Pearson, Spearman and
 * Kendall, switched without a new request; each value on hover and in a table) and the feature importance
 * of the best of the models compared, with each model's cross-validated accuracy. The analysis runs on a
 * GET (it changes nothing; the address can be kept and reloaded) through the same services as
 * `POST /api/correlations/analyze` and `POST /api/feature-importance/analyze`, checked by the same schema.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { render } from "../shared/components.tsx";
import { ValuationPage, type ValuationView } from "./views/valuation_page.tsx";
import { featureRequest, queryOf } from "./valuation_query.ts";
import { listDatasets, recordedTarget } from "../../../services/datasets/registry.ts";
import { analyzeCorrelations } from "../../../services/valuation/correlations.ts";
import { analyzeFeatureImportance } from "../../../services/valuation/feature_importance.ts";
import type { ModelName } from "../../../core/learn/models.ts";
import { InvalidInputError, InvalidInputsError, LimitError, NotFoundError } from "../../../core/errors.ts";

/** The field a valuation error concerns (its `loc`), or "form". */
function fieldOf(e: InvalidInputError): string {
  return String(e.loc[1] ?? "form");
}

export async function valuationPage(c: Context<ConsoleEnv>) {
  const deps = c.var.deps;
  const q = queryOf(c);
  const datasets = await listDatasets(deps.store, deps.config.TESSERA_DB);
  const values: Record<string, string> = {};
  if (q.folds) values.folds = q.folds;
  if (q.trainSize) values.train_size = q.trainSize;
  if (q.seed) values.seed = q.seed;
  const base = { session: c.var.session, datasets, q, correlations: null, importance: null };
  if (!q.dataset) return render(c, <ValuationPage {...base} dataset={null} form={{ values }} />);
  const dataset = datasets.find((d) => d.dataset_name === q.dataset) ?? null;
  if (!dataset) {
    const errors = { dataset: `There is no dataset '${q.dataset}'.` };
    return render(c, <ValuationPage {...base} dataset={null} form={{ values, errors }} />, 404);
  }
  const lastColumn = recordedTarget(dataset); // the recorded target: an appended is_anomaly is not it
  const { errors, request } = featureRequest(q, dataset);
  const target = request?.target ?? (q.targetOf === dataset.dataset_name ? q.target : undefined) ??
    lastColumn;
  let notice: ValuationView["notice"];
  const [corr, fi] = await Promise.allSettled([
    analyzeCorrelations(deps, {
      datasetId: dataset.dataset_name,
      methods: { pearson: true, spearman: true, kendall: true },
    }),
    request
      ? analyzeFeatureImportance(deps, {
        datasetId: dataset.dataset_name,
        models: request.model_names as ModelName[] | null | undefined,
        target: request.target,
        trainSize: request.train_size,
        folds: request.folds,
        seed: request.seed,
        maxCategories: request.max_categories,
      })
      : Promise.resolve(null),
  ]);
  const problem = (r: PromiseSettledResult<unknown>, what: string) => {
    if (r.status === "fulfilled") return;
    const e = r.reason;
    if (e instanceof InvalidInputError) errors[fieldOf(e) === "body" ? "form" : fieldOf(e)] ??= e.message;
    else if (e instanceof InvalidInputsError) {
      for (const p of e.problems) {
        if (p instanceof InvalidInputError) errors[fieldOf(p)] ??= p.message;
      }
    } else if (e instanceof LimitError || e instanceof NotFoundError) {
      notice = { kind: "error", text: `The ${what} could not be computed: ${e.message}.` };
    } else throw e;
  };
  problem(corr, "correlations");
  problem(fi, "feature importance");
  if (errors.form) notice ??= { kind: "error", text: errors.form };
  const status = Object.keys(errors).length ? 422 : notice ? 503 : 200;
  return render(
    c,
    <ValuationPage
      {...base}
      dataset={dataset}
      form={{ values: { ...values, ...(target ? { target } : {}) }, errors }}
      target={target}
      correlations={corr.status === "fulfilled" ? corr.value : null}
      importance={fi.status === "fulfilled" ? fi.value : null}
      notice={notice}
    />,
    status,
  );
}
