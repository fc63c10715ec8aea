/** An audit's result: its summary (SBI, threshold, significant regions), its maps and the "Regions" table. */
import type { FC } from "hono/jsx";
import { fixed4, int, pct, pval } from "../formats.ts";
import { mapFiles } from "../hrefs.ts";
import { type AuditView, rateDiff } from "../run_views.ts";
import type { Sort } from "../sort.ts";
import { MapFigure, Stats } from "./review_parts.tsx";
import {
  Diff,
  freezeColumn,
  regionColumns,
  RegionsSection,
  RegionTable,
  sortable,
  Yes,
} from "./region_table.tsx";

const rateName = (a: { equalOpp: boolean }) => (a.equalOpp ? "true-positive rate" : "positive rate");

/** The region table of an audit: one row per region. */
export const RegionsTable: FC<
  { audit: AuditView; sort: Sort; equalOpp: boolean; frozen: ReadonlySet<number> }
> = (
  { audit, sort, equalOpp, frozen },
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
        freezeColumn<R>(frozen),
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

export const fairAlt = (a: AuditView, what: string, equalOpp: boolean) =>
  `${what}: ${a.stats.length} regions coloured by their ${rateName({ equalOpp })} minus the overall one ` +
  `(${pct(a.n_individuals ? a.n_positives / a.n_individuals : null)}); ${signifText(a)}.`;

/** What an audit ran with, in a line. */
export const AuditParams: FC<{ a: AuditView; equalOpp: boolean }> = ({ a, equalOpp }) => (
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

export const AuditResult: FC<
  { task: string; runId: string; a: AuditView; sort: Sort; equalOpp: boolean; frozen: ReadonlySet<number> }
> = ({ task, runId, a, sort, equalOpp, frozen }) => {
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
        <RegionsTable audit={a} sort={sort} equalOpp={equalOpp} frozen={frozen} />
      </RegionsSection>
    </>
  );
};
