/** The valuation's feature-importance part: the best model's importances and the models' accuracies. */
import type { Child } from "hono/jsx";
import { DataTable, Panel } from "../../shared/components.tsx";
import { count, fmt3, percent } from "../../shared/analysis_parts.tsx";
import { ChartFigure } from "../../shared/charts/chart_frame.tsx";
import { BarChart } from "../../shared/charts/bar_chart.tsx";
import type { FeatureImportance } from "../../../../services/valuation/feature_importance.ts";

/** A chart beside the table of its numbers (on a narrow screen, above it). */
const ChartAndTable = ({ chart, children }: { chart: Child; children?: Child }) => (
  <div class="two-col">
    <div>
      <ChartFigure>{chart}</ChartFigure>
    </div>
    <div>{children}</div>
  </div>
);

/** The feature importance of the best model, and every model's accuracy: charts beside their tables. */
export const ImportanceSection = ({ fi }: { fi: FeatureImportance }) => {
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
