/** The task's runs: the list of earlier runs with their figures, and the heading of the open one. */
import type { FC } from "hono/jsx";
import { type Column, DataTable, Panel, When } from "../../shared/components.tsx";
import { fixed4, int, num } from "../formats.ts";
import { reportHref, runHref } from "../hrefs.ts";
import { Change } from "./review_parts.tsx";
import type { StoredRun } from "../../../../services/spatial/runs.ts";

const KIND_LABEL = { audit: "Audit", relabel: "Relabel", threshold: "Thresholds" } as const;
export const kindLabel = (k: keyof typeof KIND_LABEL) => KIND_LABEL[k];

export interface RunListEntry {
  run_id: string;
  kind: keyof typeof KIND_LABEL;
  created_at: string;
  requested_by: string | null;
  summary: Record<string, unknown>;
}

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
            {
              head: "Report",
              cell: (r) => (
                <a href={reportHref(task, r.run_id)} aria-label={`Report of the run of ${r.created_at}`}>
                  Report
                </a>
              ),
            },
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
