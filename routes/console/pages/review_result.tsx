/**
 * A kept run as the review page shows it: the audit's summary (SBI, threshold, significant regions),
 * its fair and distribution maps and the "Regions" table; a mitigation's metrics before and after, the
 * fair maps before and after side by side, the flips map, the regions before → after with their flips,
 * and for thresholds the charts and the thresholds table; CSV downloads of each. Everything is read from
 * the stored run (services/spatial/runs.ts): maps by URL, never inline.
 */
import type { Child, FC } from "hono/jsx";
import { type Column, DataTable, Panel, When } from "../shared/components.tsx";
import type { AuditPayload } from "../../../services/spatial/audit.ts";
import type { MitigationAnswer, ThresholdAnswer } from "../../../services/mitigation/mitigate.ts";
import type { StoredRun } from "../../../services/spatial/runs.ts";
import {
  Change,
  csvHref,
  CsvLink,
  fixed4,
  int,
  MapFigure,
  mapHref,
  pct,
  pp,
  pval,
  runHref,
  sig,
  Stats,
} from "./review_parts.tsx";

/** An audit's statistics as the stored answer holds them (its maps are served by URL). */
export type AuditView = Omit<AuditPayload, `${string}_html` | `${string}_image`>;
type RegionStat = AuditView["stats"][number];

/** The difference of a region's rate from the audit's overall rate (null for an empty region). */
export const rateDiff = (a: AuditView, s: RegionStat) =>
  s.rate === null || a.n_individuals === 0 ? null : s.rate - a.n_positives / a.n_individuals;

const rateName = (a: { equalOpp: boolean }) => (a.equalOpp ? "true-positive rate" : "positive rate");

// ---------------------------------------------------------------------------------------------------
// Sorting the region tables (by links: works without script, and the URL says the order)

export const SORT_KEYS = [
  "default",
  "region",
  "n",
  "rate",
  "diff",
  "p",
  "flips",
  "diff_after",
  "p_after",
] as const;
export type SortKey = typeof SORT_KEYS[number];
export interface Sort {
  key: SortKey;
  dir: "asc" | "desc";
}

/** The order the page was asked for (`?sort=&dir=`), else significant first. */
export function sortOf(query: (k: string) => string | undefined): Sort {
  const key = (SORT_KEYS as readonly string[]).includes(query("sort") ?? "")
    ? query("sort") as SortKey
    : "default";
  return { key, dir: query("dir") === "desc" ? "desc" : "asc" };
}

/** One row of a region table: its sort values (what its cells show is the table's own). */
interface Row {
  values: Partial<Record<SortKey, number | null>>;
  signif: boolean;
}

/** Significant first, then the smallest p-value, then the largest difference, then by region id. */
function defaultOrder(a: Row, b: Row) {
  const n = (
    v: number | null | undefined,
    fallback: number,
  ) => (v === null || v === undefined ? fallback : v);
  return Number(b.signif) - Number(a.signif) ||
    n(a.values.p, 2) - n(b.values.p, 2) ||
    Math.abs(n(b.values.diff, 0)) - Math.abs(n(a.values.diff, 0)) ||
    n(a.values.region, 0) - n(b.values.region, 0);
}

function sortRows<R extends Row>(rows: R[], sort: Sort): R[] {
  if (sort.key === "default") return [...rows].sort(defaultOrder);
  const k = sort.key, sign = sort.dir === "asc" ? 1 : -1;
  return [...rows].sort((a, b) => {
    const x = a.values[k], y = b.values[k];
    if (x === null || x === undefined) return y === null || y === undefined ? defaultOrder(a, b) : 1;
    if (y === null || y === undefined) return -1;
    return sign * (x - y) || defaultOrder(a, b);
  });
}

/** A column header that sorts by its key: a link to the same page in that order, and `aria-sort`. */
const SortHead: FC<{ label: Child; k: SortKey; sort: Sort; num?: boolean; first?: "asc" | "desc" }> = (
  { label, k, sort, num, first = "asc" },
) => {
  const current = sort.key === k;
  const next = current ? (sort.dir === "asc" ? "desc" : "asc") : first;
  const ariaSort = current ? (sort.dir === "asc" ? "ascending" : "descending") : undefined;
  return (
    <th scope="col" class={num ? "num" : undefined} aria-sort={ariaSort}>
      <a class="sort" href={`?sort=${k}&dir=${next}#regions`}>
        {label}
        <span class="sort-mark" aria-hidden="true">{current ? (sort.dir === "asc" ? " ▲" : " ▼") : ""}</span>
        <span class="visually-hidden">{`, sort ${next === "asc" ? "ascending" : "descending"}`}</span>
      </a>
    </th>
  );
};

const Yes: FC<{ on: boolean }> = ({ on }) =>
  on ? <span class="badge badge-signif">Yes</span> : <span class="muted">No</span>;

/** A signed difference, tinted red above the overall rate and blue below (the maps' colours). */
const Diff: FC<{ d: number | null }> = ({ d }) => (
  <span class={d === null || Math.abs(d) < 0.0005 ? undefined : d > 0 ? "above" : "below"}>{pp(d)}</span>
);

/** The note under the table: what the order is and how to change it. */
const SortNote: FC<{ sort: Sort }> = ({ sort }) => (
  <p class="hint">
    {sort.key === "default"
      ? "Significant regions first, then by p-value. Select a column heading to sort by it."
      : (
        <>
          Sorted by the selected column. <a href="?#regions">Significant first</a>
        </>
      )}
  </p>
);

/** A column of a region table whose header sorts the table by `k` (first in the `first` direction). */
const sortable = <R,>(
  sort: Sort,
  label: Child,
  k: SortKey,
  column: Omit<Column<R>, "head" | "th">,
  first?: "asc" | "desc",
): Column<R> => ({
  ...column,
  th: <SortHead label={label} k={k} sort={sort} num={column.num} first={first} />,
});

/**
 * Rows a region table shows, the first in the order asked for; the CSV download holds every region. A
 * table of 3,000 regions took ~100 ms of the event loop to render and is no page to read.
 */
export const MAX_TABLE_REGIONS = 500;

/** The regions in the order asked for, significant ones marked, with the note on the order below. */
export function RegionTable<R extends Row>(
  p: { label: string; class?: string; rows: R[]; sort: Sort; columns: Column<R>[] },
) {
  const sorted = sortRows(p.rows, p.sort);
  return (
    <>
      <DataTable
        label={p.label}
        class={p.class}
        caption="Regions"
        captionHidden
        rows={sorted.slice(0, MAX_TABLE_REGIONS)}
        rowClass={(r) => (r.signif ? "signif" : undefined)}
        columns={p.columns}
      />
      {sorted.length > MAX_TABLE_REGIONS && (
        <p class="hint cut">
          The first {int(MAX_TABLE_REGIONS)} of {int(sorted.length)}{" "}
          regions in this order; the CSV download holds every region.
        </p>
      )}
      <SortNote sort={p.sort} />
    </>
  );
}

/** A part of a result under its own heading, the downloads of its numbers beside the heading. */
const DownloadSection: FC<{
  id: string;
  title: Child;
  anchor?: string;
  downloads: Child;
  children?: Child;
}> = (p) => (
  <section aria-labelledby={p.id} id={p.anchor}>
    <div class="section-head">
      <h3 id={p.id}>{p.title}</h3>
      {p.downloads}
    </div>
    {p.children}
  </section>
);

/** The regions' section (`#regions`, where the sort links return to), with the download of its numbers. */
const RegionsSection: FC<{ task: string; runId: string; title: string; more?: Child; children?: Child }> = (
  p,
) => (
  <DownloadSection
    id="regions-title"
    anchor="regions"
    title={p.title}
    downloads={
      <>
        <CsvLink href={csvHref(p.task, p.runId, "regions")} label="Download region statistics (CSV)" />
        {p.more}
      </>
    }
  >
    {p.children}
  </DownloadSection>
);

/** The first columns of both region tables: the region, which names the row, and its individuals. */
const regionColumns = <R extends { s: RegionStat }>(sort: Sort): Column<R>[] => [
  sortable<R>(sort, "Region", "region", { num: true, rowHead: true, cell: (r) => r.s.region_id }),
  sortable<R>(sort, "Individuals", "n", { num: true, cell: (r) => int(r.s.n) }, "desc"),
];

// ---------------------------------------------------------------------------------------------------
// The audit

/** The region table of an audit: one row per region. */
export const RegionsTable: FC<{ audit: AuditView; sort: Sort; equalOpp: boolean }> = (
  { audit, sort, equalOpp },
) => {
  const rows = audit.stats.map((s) => {
    const d = rateDiff(audit, s);
    return {
      s,
      d,
      signif: s.is_signif,
      values: { region: s.region_id, n: s.n, rate: s.rate, diff: d, p: s.p_value },
    };
  });
  type R = typeof rows[number];
  return (
    <RegionTable
      label="Regions, scrollable"
      rows={rows}
      sort={sort}
      columns={[
        ...regionColumns<R>(sort),
        { head: "Positives", num: true, cell: (r) => int(r.s.p) },
        sortable<R>(
          sort,
          equalOpp ? "TPR" : "Rate",
          "rate",
          { num: true, cell: (r) => pct(r.s.rate) },
          "desc",
        ),
        sortable<R>(sort, "Rate difference", "diff", { num: true, cell: (r) => <Diff d={r.d} /> }, "desc"),
        sortable<R>(sort, "p-value", "p", { num: true, cell: (r) => pval(r.s.p_value) }),
        sortable<R>(sort, "Significant", "default", { cell: (r) => <Yes on={r.s.is_signif} /> }),
      ]}
    />
  );
};

/** The significant regions, for a map's text alternative. */
function signifText(a: AuditView): string {
  const sig = a.stats.filter((s) => s.is_signif);
  if (!sig.length) return "no region is significant";
  const side = (up: boolean) => sig.filter((s) => (rateDiff(a, s) ?? 0) > 0 === up).map((s) => s.region_id);
  const above = side(true), below = side(false);
  return [
    above.length ? `above the overall rate: ${above.join(", ")}` : "",
    below.length ? `below it: ${below.join(", ")}` : "",
  ].filter(Boolean).join("; ").replace(/^/, "significant regions ");
}

const fairAlt = (a: AuditView, what: string, equalOpp: boolean) =>
  `${what}: ${a.stats.length} regions coloured by their ${rateName({ equalOpp })} minus the overall one ` +
  `(${pct(a.n_individuals ? a.n_positives / a.n_individuals : null)}); ${signifText(a)}.`;

/** What an audit ran with, in a line. */
const AuditParams: FC<{ a: AuditView; equalOpp: boolean }> = ({ a, equalOpp }) => (
  <p class="muted params">
    {equalOpp ? "Equal opportunity" : "Statistical parity"} · {int(a.n_worlds)} worlds · significance level
    {" "}
    {a.signif_level} · regions from {a.regions_source === "kmeans"
      ? "k-means of the coordinates"
      : a.regions_source === "polygons"
      ? "polygons"
      : "region ids"} · seed {a.seed} ({a.rng})
    {a.unassigned_individuals > 0 && <>{" · "}{int(a.unassigned_individuals)} individuals in no polygon</>}
  </p>
);

/** The summary figures of one audit. */
const AuditStats: FC<{ a: AuditView; equalOpp: boolean }> = ({ a, equalOpp }) => (
  <Stats
    label="Audit summary"
    items={[
      { label: "SBI", value: fixed4(a.sbi_score), note: "spatial bias index: mean s" },
      { label: "Threshold", value: fixed4(a.signif_thresh), note: "T: a region with s ≥ T is significant" },
      {
        label: "Significant regions",
        value: `${a.total_signif_regions} of ${a.stats.length}`,
      },
      {
        label: equalOpp ? "Overall TPR" : "Overall rate",
        value: pct(a.n_individuals ? a.n_positives / a.n_individuals : null),
        note: `${int(a.n_positives)} of ${int(a.n_individuals)} ${
          equalOpp ? "with y_true = 1" : "individuals"
        }`,
      },
    ]}
  />
);

/** A map of a run as the runs service keeps it: its PNG (`<name>_image`) and its HTML page (`<name>_html`). */
const mapFiles = (task: string, runId: string, name: string) => ({
  png: mapHref(task, runId, `${name}_image`),
  html: mapHref(task, runId, `${name}_html`),
});

export const AuditResult: FC<{ task: string; runId: string; a: AuditView; sort: Sort; equalOpp: boolean }> = (
  { task, runId, a, sort, equalOpp },
) => {
  const maps = (name: string) => mapFiles(task, runId, name);
  return (
    <>
      <AuditParams a={a} equalOpp={equalOpp} />
      <AuditStats a={a} equalOpp={equalOpp} />
      <div class="maps">
        <MapFigure
          title="Fair map"
          {...maps("fair_map")}
          alt={fairAlt(a, "Fair map", equalOpp)}
          caption="Rate difference per region; significant regions outlined."
        />
        <MapFigure
          title="Distribution map"
          {...maps("distribution_map")}
          alt={`Distribution map: the individuals audited as dots coloured by their prediction, over the ${a.stats.length} regions.`}
          caption="Individuals by prediction (a sample of at most 10,000)."
        />
      </div>
      <RegionsSection task={task} runId={runId} title="Regions">
        <RegionsTable audit={a} sort={sort} equalOpp={equalOpp} />
      </RegionsSection>
    </>
  );
};

// ---------------------------------------------------------------------------------------------------
// A mitigation

export type MitigationView =
  & Omit<
    MitigationAnswer,
    | "flips_map_html"
    | "flips_map_image"
    | "audit_before_mitigation"
    | "audit_after_mitigation"
    | "mitigated_preds"
  >
  & {
    audit_before_mitigation: AuditView;
    audit_after_mitigation: AuditView;
    mitigated_preds?: unknown;
  }
  & Partial<Pick<ThresholdAnswer, "new_thresholds" | "train_size" | "test_size">>;

/** The metrics before and after, with SBI, significant regions and the rate. */
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
const RegionsChangeTable: FC<{ m: MitigationView; sort: Sort; equalOpp: boolean }> = (
  { m, sort, equalOpp },
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
  }
> = ({ task, runId, kind, m, sort, equalOpp }) => {
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
        <RegionsChangeTable m={m} sort={sort} equalOpp={equalOpp} />
      </RegionsSection>
    </>
  );
};

// ---------------------------------------------------------------------------------------------------
// The runs of the task

const KIND_LABEL = { audit: "Audit", relabel: "Relabel", threshold: "Thresholds" } as const;
export const kindLabel = (k: keyof typeof KIND_LABEL) => KIND_LABEL[k];

export interface RunListEntry {
  run_id: string;
  kind: keyof typeof KIND_LABEL;
  created_at: string;
  requested_by: string | null;
  summary: Record<string, unknown>;
}

const num = (v: unknown) => (typeof v === "number" ? v : null);

/** A figure of a run's summary: an audit's `key`, a mitigation's `key_before` → `key_after`. */
const summaryColumn = (head: string, key: string, f: (x: number | null) => string): Column<RunListEntry> => ({
  head,
  num: true,
  class: "num nowrap",
  cell: ({ kind, summary: s }) =>
    kind === "audit"
      ? f(num(s[key]))
      : <Change before={f(num(s[`${key}_before`]))} after={f(num(s[`${key}_after`]))} />,
});

export const RunsList: FC<{ task: string; runs: RunListEntry[]; current?: string; kept: number }> = (
  { task, runs, current, kept },
) => (
  <Panel id="runs-title" anchor="runs" title="Earlier runs">
    {runs.length === 0 ? <p class="muted">No run yet: run an audit to start.</p> : (
      <>
        <DataTable
          label="Earlier runs, scrollable"
          caption="Earlier runs of this task, newest first"
          captionHidden
          rows={runs}
          rowClass={(r) => (r.run_id === current ? "current" : undefined)}
          columns={[
            {
              head: "Run (UTC)",
              rowHead: true,
              class: "nowrap",
              cell: (r) => (
                <>
                  <a href={runHref(task, r.run_id)} aria-current={r.run_id === current ? "page" : undefined}>
                    <When iso={r.created_at} utc={false} />
                  </a>
                  {r.run_id === current && <span class="muted">(shown)</span>}
                </>
              ),
            },
            { head: "Kind", cell: (r) => kindLabel(r.kind) },
            summaryColumn("SBI", "sbi_score", fixed4),
            summaryColumn("Significant", "total_signif_regions", int),
            {
              head: "Flips",
              num: true,
              cell: (r) => (r.kind === "audit" ? <span class="muted">—</span> : int(num(r.summary.n_flips))),
            },
            { head: "By", cell: (r) => r.requested_by ?? <span class="muted">—</span> },
          ]}
        />
        <p class="hint">A task keeps its last {kept} runs.</p>
      </>
    )}
  </Panel>
);

/** What the run page says about a run above its result. */
export const RunHeading: FC<{ run: StoredRun["run"]; by: string | null }> = ({ run, by }) => (
  <div class="run-head">
    <h2 id="result-title">{kindLabel(run.kind)}</h2>
    <p class="muted">
      <When iso={run.created_at} />
      {by && <>{" · "}by {by}</>}
    </p>
  </div>
);
