/**
 * Data valuation in the console: choose a dataset, and see its correlation heatmap (Pearson, Spearman and
 * Kendall, switched without a new request; each value on hover and in a table) and the feature importance
 * of the best of the models compared, with each model's cross-validated accuracy. The analysis runs on a
 * GET (it changes nothing; the address can be kept and reloaded) through the same services as
 * `POST /api/correlations/analyze` and `POST /api/feature-importance/analyze`, checked by the same schema.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { Child } from "hono/jsx";
import type { ConsoleEnv } from "../shared/env.ts";
import { Layout } from "../shared/layout.tsx";
import {
  type Column,
  DataTable,
  errorsByField,
  Field,
  type FormState,
  Message,
  PageHead,
  Panel,
  render,
  SelectField,
  Submit,
} from "../shared/components.tsx";
import { AnalysisAssets, Busy, CheckGroup, count, percent } from "../shared/analysis_parts.tsx";
import { BarChart, ChartFigure, Heatmap } from "../shared/charts.tsx";
import { type DatasetRecord, listDatasets, recordedTarget } from "../../../services/datasets/registry.ts";
import { analyzeCorrelations, type Correlations } from "../../../services/valuation/correlations.ts";
import {
  analyzeFeatureImportance,
  type FeatureImportance,
} from "../../../services/valuation/feature_importance.ts";
import { FeatureImportanceRequest } from "../../valuation/valuation.schemas.ts";
import { zodToDetail } from "../../http/error_answers.ts";
import { MODEL_NAMES, type ModelName } from "../../../core/learn/models.ts";
import type { Method } from "../../../core/stats/correlation.ts";
import { InvalidInputError, InvalidInputsError, LimitError, NotFoundError } from "../../../core/errors.ts";
import type { ConsoleSession } from "../../../services/console/sessions.ts";

const BASE = "/console/valuation";
const METHOD_LABEL: Record<Method, string> = { pearson: "Pearson", spearman: "Spearman", kendall: "Kendall" };
const METHOD_ORDER: Method[] = ["pearson", "spearman", "kendall"];
const METHOD_NOTE: Record<Method, string> = {
  pearson: "linear association",
  spearman: "monotonic association, on ranks (ties averaged)",
  kendall: "Kendall's tau-b: agreement of pairs, ties accounted for",
};

/** The form's fields as the page's address carries them. */
interface Query {
  dataset?: string;
  target?: string;
  /** The dataset the target was chosen for: a target left over from another dataset is not used. */
  targetOf?: string;
  folds?: string;
  trainSize?: string;
  seed?: string;
  models?: string[];
  method: Method;
}

function queryOf(c: Context<ConsoleEnv>): Query {
  const q = (k: string) => c.req.query(k)?.trim() || undefined;
  const method = q("corr");
  return {
    dataset: q("dataset"),
    target: q("target"),
    targetOf: q("target_of"),
    folds: q("folds"),
    trainSize: q("train_size"),
    seed: q("seed"),
    models: c.req.queries("model_names"),
    method: method === "spearman" || method === "kendall" ? method : "pearson",
  };
}

/** The request body of the feature-importance API that the form's fields make, or the fields' problems. */
function featureRequest(q: Query, dataset: DatasetRecord) {
  const errors: Record<string, string> = {};
  const body: Record<string, unknown> = {};
  const num = (field: string, text: string | undefined) => {
    if (text === undefined) return;
    const n = Number(text);
    if (Number.isFinite(n)) body[field] = n;
    else errors[field] = "Enter a number.";
  };
  num("folds", q.folds);
  num("train_size", q.trainSize);
  num("seed", q.seed);
  const target = q.targetOf === dataset.dataset_name ? q.target : undefined;
  if (target) body.target = target;
  if (q.models?.length) body.model_names = q.models;
  const parsed = FeatureImportanceRequest.safeParse(body);
  if (!parsed.success) Object.assign(errors, errorsByField(zodToDetail(parsed.error, "body", body)));
  if (Object.keys(errors).length || !parsed.success) return { errors };
  return { errors, request: parsed.data };
}

interface ValuationView {
  session: ConsoleSession;
  datasets: DatasetRecord[];
  dataset: DatasetRecord | null;
  q: Query;
  form: FormState;
  /** The target the analysis used, or the one it would use. */
  target?: string;
  correlations: Correlations | null;
  importance: FeatureImportance | null;
  notice?: { kind: "info" | "error"; text: string };
}

/** Three decimals, without a minus before a zero ("-0.000"). */
const fmt3 = (v: number) => (Math.abs(v) < 0.0005 ? 0 : v).toFixed(3);

const CorrelationTable = (
  { m, names, matrix }: { m: Method; names: string[]; matrix: Correlations["matrices"][Method] },
) => (
  <DataTable
    label={`${METHOD_LABEL[m]} correlation coefficients`}
    class="matrix"
    rows={names}
    columns={[
      { head: <span class="visually-hidden">Column</span>, rowHead: true, cell: (a) => a },
      ...names.map((b): Column<string> => ({
        head: b,
        num: true,
        cell: (a) => {
          const v = matrix?.[a]?.[b];
          return typeof v === "number" ? fmt3(v) : "—";
        },
      })),
    ]}
  />
);

/** A chart beside the table of its numbers (on a narrow screen, above it). */
const ChartAndTable = ({ chart, children }: { chart: Child; children?: Child }) => (
  <div class="two-col">
    <div>
      <ChartFigure>{chart}</ChartFigure>
    </div>
    <div>{children}</div>
  </div>
);

const CorrelationSection = ({ v, corr }: { v: ValuationView; corr: Correlations }) => {
  const names = Object.keys(corr.matrices.pearson ?? corr.matrices.spearman ?? corr.matrices.kendall ?? {});
  return (
    <Panel id="corr-h" title="Correlation" class="corr">
      {names.length === 0
        ? <p>{`${v.dataset!.dataset_name} has no numeric column: there is nothing to correlate.`}</p>
        : (
          <>
            <p class="muted">
              {`${names.length} numeric column${names.length === 1 ? "" : "s"} (booleans as 0/1) over ${
                count(corr.shape[0])
              } rows; pairs are taken over the rows where both are present. Hover a cell for its value; the table below has them all.`}
            </p>
            <fieldset class="switch">
              <legend>Method</legend>
              <span class="options">
                {METHOD_ORDER.map((m) => (
                  <label>
                    <input type="radio" name="corr-method" value={m} checked={m === v.q.method} />
                    {METHOD_LABEL[m]}
                  </label>
                ))}
              </span>
            </fieldset>
            {METHOD_ORDER.map((m) => (
              <div class={`corr-panel m-${m}`}>
                <ChartFigure
                  caption={`${METHOD_LABEL[m]}: ${
                    METHOD_NOTE[m]
                  }. −1 blue, 0 white, +1 red; grey: no coefficient.`}
                >
                  <Heatmap
                    id={`heatmap-${m}`}
                    title={`Correlation heatmap, ${METHOD_LABEL[m]}`}
                    description={`${METHOD_LABEL[m]} coefficients (${
                      METHOD_NOTE[m]
                    }) between the ${names.length} numeric columns of ${
                      v.dataset!.dataset_name
                    }, from -1 (blue) through 0 (white) to +1 (red). The table that follows lists every value.`}
                    names={names}
                    value={(a, b) => corr.matrices[m]?.[a]?.[b] ?? null}
                    format={fmt3}
                  />
                </ChartFigure>
                <CorrelationTable m={m} names={names} matrix={corr.matrices[m]} />
              </div>
            ))}
          </>
        )}
    </Panel>
  );
};

const ImportanceSection = ({ fi }: { fi: FeatureImportance }) => {
  const top = fi.importance;
  return (
    <Panel id="fi-h" title="Feature importance">
      <p>
        {`Predicting `}
        <strong>{fi.target}</strong>
        {`: ${fi.models.length} model${
          fi.models.length === 1 ? "" : "s"
        } compared by ${fi.folds}-fold stratified cross-validation on the training split; the best, `}
        <strong>{fi.best}</strong>
        {`, reached ${
          percent(fi.holdoutAccuracy)
        } on the held-out rows. Its impurity-based importances (they sum to 1):`}
      </p>
      <ChartAndTable
        chart={
          <BarChart
            id="importance-chart"
            title={`Feature importance, ${fi.best}`}
            description={`The ${top.length} features of ${fi.target}'s best model, ${fi.best}, by importance, largest first. The table that follows lists them.`}
            bars={top.map((f, i) => ({ label: f.feature, value: f.importance, highlight: i === 0 }))}
            format={(x) => percent(x)}
          />
        }
      >
        <DataTable
          label="Feature importance by feature"
          compact
          rows={top}
          columns={[
            { head: "Feature", rowHead: true, cell: (f) => f.feature },
            { head: "Importance", num: true, cell: (f) => fmt3(f.importance) },
          ]}
        />
      </ChartAndTable>
      <h3 id="acc-h">Model accuracy</h3>
      <ChartAndTable
        chart={
          <BarChart
            id="accuracy-chart"
            title="Model accuracy, mean cross-validated"
            description={`Mean cross-validated accuracy of each model, best first: ${
              fi.models.map((m, i) => `${m} ${percent(fi.accuracies[i])}`).join(", ")
            }.`}
            bars={fi.models.map((m, i) => ({ label: m, value: fi.accuracies[i], highlight: m === fi.best }))}
            max={1}
            ticks={[0, 0.25, 0.5, 0.75, 1]}
            format={(x) => `${Math.round(x * 1000) / 10} %`}
          />
        }
      >
        <DataTable
          label="Accuracy by model"
          compact
          rows={fi.models}
          columns={[
            {
              head: "Model",
              rowHead: true,
              cell: (m) => (
                <>
                  {m}
                  {m === fi.best && <span class="badge badge-done">best</span>}
                </>
              ),
            },
            { head: "Accuracy", num: true, cell: (_, i) => `${(fi.accuracies[i] * 100).toFixed(2)} %` },
          ]}
        />
        <p class="muted">
          {`Dataset ${count(fi.shape[0])} rows × ${fi.shape[1]} columns; analysed in ${
            fi.elapsedSeconds.toFixed(1)
          } s.`}
        </p>
      </ChartAndTable>
    </Panel>
  );
};

const ValuationPage = (v: ValuationView) => {
  const d = v.dataset;
  const chosenModels = new Set(v.q.models?.length ? v.q.models : MODEL_NAMES);
  return (
    <Layout title={d ? `Valuation of ${d.dataset_name}` : "Valuation"} active="valuation" session={v.session}>
      <AnalysisAssets />
      <PageHead
        title={d ? `Valuation of ${d.dataset_name}` : "Valuation"}
        lede="How the columns of a dataset relate, and which of them predict its target."
      />
      {v.notice && <Message {...v.notice} />}
      <Panel id="analyse-h" title="Analyse a dataset">
        <form method="get" action={BASE} aria-labelledby="analyse-h">
          <input type="hidden" name="corr" value={v.q.method} />
          <div class="form-grid">
            <SelectField
              label="Dataset"
              name="dataset"
              state={v.form}
              value={d?.dataset_name ?? ""}
              options={[
                ["", v.datasets.length ? "Choose a dataset" : "No datasets yet"],
                ...v.datasets.map((
                  x,
                ): [string, string] => [x.dataset_name, `${x.dataset_name} (${count(x.rows)} rows)`]),
              ]}
            />
            {d && (
              <>
                <input type="hidden" name="target_of" value={d.dataset_name} />
                <SelectField
                  label="Target"
                  name="target"
                  state={v.form}
                  value={v.target}
                  hint="The column the models predict (default: the dataset's target, recorded at import)."
                  options={d.columns.map((c): [string, string] => [c.name, c.name])}
                />
              </>
            )}
            <Field
              label="Folds"
              name="folds"
              type="number"
              state={v.form}
              value="10"
              hint="Cross-validation folds, 2 to 50."
            />
            <Field
              label="Training share"
              name="train_size"
              state={v.form}
              value="0.7"
              hint="Share of rows the models train on (0 to 1); the rest is held out."
            />
            <Field
              label="Seed"
              name="seed"
              type="number"
              state={v.form}
              value="42"
              hint="Same seed, same answer."
            />
          </div>
          <CheckGroup
            legend="Models"
            name="model_names"
            id="f-model_names"
            hint="None ticked: all four."
            error={v.form.errors?.model_names}
            options={MODEL_NAMES.map((m) => ({ value: m, label: m, checked: chosenModels.has(m) }))}
          />
          <Submit label="Analyse" />
          <Busy>
            Analysing: correlations of every numeric column, and the models compared by cross-validation. This
            can take a few seconds.
          </Busy>
        </form>
      </Panel>
      {v.correlations && <CorrelationSection v={v} corr={v.correlations} />}
      {v.importance && <ImportanceSection fi={v.importance} />}
    </Layout>
  );
};

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

/** Mounts the valuation page; `page` is the signed-in middleware. */
export function valuationPages(app: Hono<ConsoleEnv>, page: MiddlewareHandler<ConsoleEnv>): void {
  app.get(BASE, page, valuationPage);
}
