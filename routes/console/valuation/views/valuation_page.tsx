/**
 * The valuation page: the form that chooses a dataset and the feature importance's settings (a GET: the
 * address keeps the analysis), then the correlation and feature-importance parts.
 */
import { Layout } from "../../shared/layout.tsx";
import {
  Field,
  type FormState,
  Message,
  PageHead,
  Panel,
  SelectField,
  Submit,
} from "../../shared/components.tsx";
import { AnalysisAssets, Busy, CheckGroup, count } from "../../shared/analysis_parts.tsx";
import { CorrelationSection } from "./correlation_section.tsx";
import { ImportanceSection } from "./importance_section.tsx";
import type { Query } from "../valuation_query.ts";
import { VALUATION } from "../valuation_query.ts";
import type { DatasetRecord } from "../../../../services/datasets/registry.ts";
import type { Correlations } from "../../../../services/valuation/correlations.ts";
import type { FeatureImportance } from "../../../../services/valuation/feature_importance.ts";
import { MODEL_NAMES } from "../../../../core/learn/models.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

export interface ValuationView {
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

export const ValuationPage = (v: ValuationView) => {
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
        <form method="get" action={VALUATION} aria-labelledby="analyse-h">
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
      {v.correlations && (
        <CorrelationSection dataset={d!.dataset_name} method={v.q.method} corr={v.correlations} />
      )}
      {v.importance && <ImportanceSection fi={v.importance} />}
    </Layout>
  );
};
