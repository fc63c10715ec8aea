/**
 * A mitigation's result: its metrics before and after, the fair maps before and after side by side, the
 * flips map, the regions before → after with their flips, and for thresholds the charts and the table.
 */
import type { FC } from "hono/jsx";
import { DataTable } from "../../shared/components.tsx";
import { fixed4, int, pct, pp, pval, sig } from "../formats.ts";
import { csvHref, mapFiles, mapHref } from "../hrefs.ts";
import { type MitigationView, rateDiff } from "../run_views.ts";
import type { Sort } from "../sort.ts";
import { Change, CsvLink, MapFigure, Stats } from "./review_parts.tsx";
import {
  Diff,
  DownloadSection,
  freezeColumn,
  regionColumns,
  RegionsSection,
  RegionTable,
  sortable,
  Yes,
} from "./region_table.tsx";
import { AuditParams, fairAlt } from "./audit_result.tsx";

const MetricsTable: FC<{ m: MitigationView; equalOpp: boolean }> = ({ m, equalOpp }) => {
  const b = m.audit_before_mitigation, a = m.audit_after_mitigation;
  const lines: [string, number | null, number | null, (x: number | null) => string][] = [
    ["SBI", b.sbi_score, a.sbi_score, fixed4],
    ["Significant regions", b.total_signif_regions, a.total_signif_regions, (x) => int(x)],
    [
      equalOpp ? "TPR (audited)" : "Positive rate (audited)",
      m.positive_rate_before,
      m.positive_rate_after,
      pct,
    ],
  ];
  if (m.metrics_before && m.metrics_after) {
    for (const k of ["accuracy", "precision", "recall", "f1"] as const) {
      const name = k === "f1" ? "F1" : `${k[0].toUpperCase()}${k.slice(1)}`;
      lines.push([name, m.metrics_before[k], m.metrics_after[k], fixed4]);
    }
  }
  const change = (x: number | null, y: number | null, f: (x: number | null) => string) => {
    if (x === null || y === null) return "—";
    const d = y - x;
    if (d === 0) return "no change";
    return `${d > 0 ? "+" : "−"}${f === pct ? pp(Math.abs(d)).replace(/^\+/, "") : f(Math.abs(d))}`;
  };
  return (
    <DataTable
      label="Metrics before and after, scrollable"
      compact
      class="metrics"
      caption="Metrics before and after"
      rows={lines}
      columns={[
        { head: "Metric", rowHead: true, cell: ([name]) => name },
        { head: "Before", num: true, cell: ([, x, , f]) => f(x) },
        { head: "After", num: true, cell: ([, , y, f]) => f(y) },
        { head: "Change", num: true, cell: ([, x, y, f]) => change(x, y, f) },
      ]}
    />
  );
};

/** Words for screen readers only, after a space. */
const Hidden: FC<{ text: string }> = ({ text }) => <span class="visually-hidden">{` ${text}`}</span>;

/** A region's flips: to 1 as +k, to 0 as −k. */
const Flips: FC<{ f?: MitigationView["n_flips_per_region"][number] }> = ({ f }) => {
  if (!f || f.n_flips === 0) return <span class="muted">0</span>;
  const up = f.n_to_positive > 0 ? `+${int(f.n_to_positive)}` : "";
  const down = f.n_to_negative > 0 ? `−${int(f.n_to_negative)}` : "";
  return (
    <span title={`${f.n_to_positive} from 0 to 1, ${f.n_to_negative} from 1 to 0`}>
      {[up, down].filter(Boolean).join(" / ")}
    </span>
  );
};

/** A header's words and, for screen readers, that the column shows both states. */
const both = (label: string) => (
  <>
    {label}
    <Hidden text="before and after" />
  </>
);

/** The regions before → after, with each region's flips. */
const RegionsChangeTable: FC<
  { m: MitigationView; sort: Sort; equalOpp: boolean; frozen: ReadonlySet<number> }
> = (
  { m, sort, equalOpp, frozen },
) => {
  const b = m.audit_before_mitigation, a = m.audit_after_mitigation;
  const flips = new Map(m.n_flips_per_region.map((f) => [f.idx, f]));
  const after = new Map(a.stats.map((s) => [s.idx, s]));
  const rows = b.stats.map((s) => {
    const t = after.get(s.idx);
    const f = flips.get(s.idx);
    const d0 = rateDiff(b, s), d1 = t ? rateDiff(a, t) : null;
    return {
      s,
      t,
      f,
      d0,
      d1,
      signif: s.is_signif,
      values: {
        region: s.region_id,
        n: s.n,
        diff: d0,
        p: s.p_value,
        flips: f?.n_flips ?? 0,
        diff_after: d1,
        p_after: t?.p_value ?? null,
      },
    };
  });
  type R = typeof rows[number];
  const wide = { num: true, class: "num nowrap" };
  return (
    <RegionTable
      label="Regions before and after, scrollable"
      class="tight"
      rows={rows}
      sort={sort}
      columns={[
        ...regionColumns<R>(sort),
        sortable<R>(sort, "Flips", "flips", { ...wide, cell: (r) => <Flips f={r.f} /> }, "desc"),
        {
          head: both(equalOpp ? "TPR" : "Rate"),
          ...wide,
          cell: (r) => <Change before={pct(r.s.rate)} after={pct(r.t?.rate)} />,
        },
        sortable<R>(sort, both("Difference"), "diff", {
          ...wide,
          cell: (r) => <Change before={<Diff d={r.d0} />} after={<Diff d={r.d1} />} />,
        }, "desc"),
        sortable<R>(sort, both("p-value"), "p", {
          ...wide,
          cell: (r) => <Change before={pval(r.s.p_value)} after={pval(r.t?.p_value)} />,
        }),
        sortable<R>(sort, both("Significant"), "default", {
          class: "nowrap",
          cell: (r) => (
            <Change before={<Yes on={r.s.is_signif} />} after={<Yes on={r.t?.is_signif ?? false} />} />
          ),
        }),
        freezeColumn<R>(frozen),
      ]}
    />
  );
};

/** The thresholds per region (threshold runs). */
const ThresholdsTable: FC<{ m: MitigationView }> = ({ m }) => {
  const delta = new Map(m.regions_delta.map((d) => [d.idx, d.delta]));
  const before = new Map(m.audit_before_mitigation.stats.map((s) => [s.idx, s]));
  return (
    <DataTable
      label="Decision thresholds, scrollable"
      compact
      caption="Decision thresholds"
      rows={m.new_thresholds ?? []}
      columns={[
        { head: "Region", num: true, rowHead: true, cell: (t) => t.region_id },
        { head: "Threshold", num: true, cell: (t) => sig(t.threshold) },
        {
          head: "Tie probability",
          num: true,
          cell: (t) =>
            t.eq_to_thresh_flip_prob < 0 ? <span class="muted">none</span> : sig(t.eq_to_thresh_flip_prob, 3),
        },
        { head: "δ (positives)", num: true, cell: (t) => sig(delta.get(t.idx) ?? 0, 3) },
        { head: "Significant before", cell: (t) => <Yes on={before.get(t.idx)?.is_signif ?? false} /> },
      ]}
    />
  );
};

/** The solver's outcome in a few words. */
const solverNote = (m: MitigationView) =>
  `${m.solver_status_message} (status ${m.solver_status_code}) in ${sig(m.solver_seconds, 2)} s`;

export const MitigationResult: FC<
  {
    task: string;
    runId: string;
    kind: "relabel" | "threshold";
    m: MitigationView;
    sort: Sort;
    equalOpp: boolean;
    frozen: ReadonlySet<number>;
  }
> = ({ task, runId, kind, m, sort, equalOpp, frozen }) => {
  const map = (name: string) => mapHref(task, runId, name);
  const maps = (name: string) => mapFiles(task, runId, name);
  const b = m.audit_before_mitigation, a = m.audit_after_mitigation;
  const toPos = m.n_flips_per_region.reduce((s, f) => s + f.n_to_positive, 0);
  const toNeg = m.n_flips_per_region.reduce((s, f) => s + f.n_to_negative, 0);
  const flippedRegions = m.n_flips_per_region.filter((f) => f.n_flips > 0).length;
  const noSolution = m.solver_status_code >= 2;
  return (
    <>
      <AuditParams a={b} equalOpp={equalOpp} />
      {kind === "threshold" && (
        <p class="muted params">
          Fitted on {int(m.train_size)} individuals, judged on the other {int(m.test_size)}{" "}
          (the test part): the audits, metrics and flips below are of the test part.
        </p>
      )}
      <Stats
        label="Mitigation summary"
        items={[
          {
            label: "Flips",
            value: int(m.n_flips),
            note: `of ${int(m.flip_budget)} allowed; in ${flippedRegions} region${
              flippedRegions === 1 ? "" : "s"
            }`,
          },
          {
            label: "SBI",
            value: <Change before={fixed4(b.sbi_score)} after={fixed4(a.sbi_score)} />,
            note: "spatial bias index",
          },
          {
            label: "Significant regions",
            value: <Change before={b.total_signif_regions} after={a.total_signif_regions} />,
            note: `of ${b.stats.length}`,
          },
          {
            label: equalOpp ? "TPR" : "Positive rate",
            value: <Change before={pct(m.positive_rate_before)} after={pct(m.positive_rate_after)} />,
            note: "of the individuals audited",
          },
        ]}
      />
      <p class={noSolution ? "notice notice-error" : "muted params"} role={noSolution ? "alert" : undefined}>
        Solver: {solverNote(m)}. {m.solver_detail}
      </p>
      <h3>Metrics</h3>
      <MetricsTable m={m} equalOpp={equalOpp} />
      {!m.metrics_before && (
        <p class="hint">No ground truth (y_true) for every individual: no accuracy metrics.</p>
      )}
      <h3>Fair maps before and after</h3>
      <div class="maps">
        <MapFigure
          title="Before mitigation"
          {...maps("audit_before_mitigation.fair_map")}
          alt={fairAlt(b, "Fair map before mitigation", equalOpp)}
        />
        <MapFigure
          title="After mitigation"
          {...maps("audit_after_mitigation.fair_map")}
          alt={fairAlt(a, "Fair map after mitigation", equalOpp)}
          caption="Same colour scale as before."
        />
      </div>
      <h3>Flips</h3>
      <p>
        <strong>{int(m.n_flips)}</strong> prediction{m.n_flips === 1 ? "" : "s"} changed: {int(toPos)}{" "}
        from 0 to 1, {int(toNeg)} from 1 to 0, in {flippedRegions} region{flippedRegions === 1 ? "" : "s"}
        {kind === "relabel" && m.flip_order
          ? `; which members flip: ${
            m.flip_order === "uncertainty" ? "the least certain first" : m.flip_order
          }`
          : ""}. The table below gives the flips per region.
      </p>
      <div class="maps">
        <MapFigure
          title="Flips map"
          {...maps("flips_map")}
          alt={`Flips map: the ${m.n_flips} individuals whose prediction changed, coloured by direction, over the regions after mitigation.`}
          caption="Flipped individuals by direction."
        />
        <MapFigure
          title="Predictions after"
          {...maps("audit_after_mitigation.distribution_map")}
          alt={`Distribution map after mitigation: the individuals audited as dots coloured by their new prediction, over the ${a.stats.length} regions.`}
          caption="Individuals by their final prediction."
        />
      </div>
      {kind === "threshold" && (
        <DownloadSection
          id="thresholds-title"
          title="Thresholds"
          downloads={<CsvLink href={csvHref(task, runId, "thresholds")} label="Download thresholds (CSV)" />}
        >
          <div class="maps">
            <MapFigure
              title="Thresholds before"
              png={map("threshold_chart_before")}
              alt="Bar chart: every region at the default decision boundary before mitigation."
            />
            <MapFigure
              title="Thresholds after"
              png={map("threshold_chart_after")}
              alt={`Bar chart of the fitted decision threshold of each region (${
                (m.new_thresholds ?? []).map((t) => `${t.region_id}: ${sig(t.threshold, 3)}`).join(", ")
              }).`}
            />
          </div>
          <ThresholdsTable m={m} />
        </DownloadSection>
      )}
      <RegionsSection
        task={task}
        runId={runId}
        title="Regions before → after"
        more={<CsvLink href={csvHref(task, runId, "predictions")} label="Download final predictions (CSV)" />}
      >
        <RegionsChangeTable m={m} sort={sort} equalOpp={equalOpp} frozen={frozen} />
      </RegionsSection>
    </>
  );
};
