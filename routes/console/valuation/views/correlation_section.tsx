/** The valuation's correlation part: a heatmap per method (Pearson, Spearman, Kendall) and its table. */
import { type Column, DataTable, Panel } from "../../shared/components.tsx";
import { count, fmt3 } from "../../shared/analysis_parts.tsx";
import { ChartFigure } from "../../shared/charts/chart_frame.tsx";
import { Heatmap } from "../../shared/charts/heatmap.tsx";
import type { Correlations } from "../../../../services/valuation/correlations.ts";
import type { Method } from "../../../../core/stats/correlation.ts";

const METHOD_LABEL: Record<Method, string> = { pearson: "Pearson", spearman: "Spearman", kendall: "Kendall" };
const METHOD_ORDER: Method[] = ["pearson", "spearman", "kendall"];
const METHOD_NOTE: Record<Method, string> = {
  pearson: "linear association",
  spearman: "monotonic association, on ranks (ties averaged)",
  kendall: "Kendall's tau-b: agreement of pairs, ties accounted for",
};

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

/** The correlation heatmaps of a dataset's numeric columns, one per method, switched by the radio buttons. */
export const CorrelationSection = (
  { dataset, method, corr }: { dataset: string; method: Method; corr: Correlations },
) => {
  const names = Object.keys(corr.matrices.pearson ?? corr.matrices.spearman ?? corr.matrices.kendall ?? {});
  return (
    <Panel id="corr-h" title="Correlation" class="corr">
      {names.length === 0 ? <p>{`${dataset} has no numeric column: there is nothing to correlate.`}</p> : (
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
                  <input type="radio" name="corr-method" value={m} checked={m === method} />
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
                  }) between the ${names.length} numeric columns of ${dataset}, from -1 (blue) through 0 (white) to +1 (red). The table that follows lists every value.`}
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
