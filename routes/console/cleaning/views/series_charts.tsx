/** A time-series job's charts: each column it processed, its filled or flagged readings marked. */
import { count } from "../../shared/analysis_parts.tsx";
import { ChartFigure } from "../../shared/charts/chart_frame.tsx";
import { SeriesChart, utcText } from "../../shared/charts/series_chart.tsx";
import type { JobRecord } from "../../../../services/cleaning/job_queue.ts";
import type { JobSeries } from "../../../../services/cleaning/review.ts";

/** The time-series charts: each column the job processed (at most four), its filled or flagged points marked. */
export const SeriesCharts = ({ job, series }: { job: JobRecord; series: JobSeries }) => {
  const impute = job.task === "impute";
  const shown = series.columns.slice(0, 4);
  return (
    <section aria-labelledby="chart-h">
      <h2 id="chart-h">
        {impute ? "The series with its filled readings" : "The series with its detected anomalies"}
      </h2>
      {shown.map((col, i) => {
        const marks = series.marks.filter((m) => m.column === col.name);
        const what = impute
          ? `${marks.length} filled reading${marks.length === 1 ? "" : "s"}`
          : `${marks.length} detected anomal${marks.length === 1 ? "y" : "ies"}`;
        const title = `${col.name} over time, with ${what}`;
        const t0 = series.times[0], t1 = series.times[series.times.length - 1];
        return (
          <ChartFigure
            caption={
              <>
                <strong>{title}.</strong>
                <ul class="chart-key">
                  <li>
                    <span class="swatch swatch-line"></span>
                    {col.name}
                  </li>
                  <li>
                    <span class={impute ? "swatch swatch-filled" : "swatch swatch-anomaly"}></span>
                    {impute ? "filled reading" : "detected anomaly"}
                  </li>
                </ul>
              </>
            }
          >
            <SeriesChart
              id={`series-${i}`}
              title={title}
              description={`${count(series.times.length)} readings of ${col.name} from ${utcText(t0)} to ${
                utcText(t1)
              }; ${what} marked. The table below lists them.`}
              times={series.times}
              values={col.values}
              marks={marks}
            />
          </ChartFigure>
        );
      })}
      {series.columns.length > shown.length && (
        <p class="muted">{`The first ${shown.length} of ${series.columns.length} columns are drawn.`}</p>
      )}
      {series.marksTruncated && (
        <p class="muted">{`The first ${count(series.marks.length)} points are marked.`}</p>
      )}
    </section>
  );
};
