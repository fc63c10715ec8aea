/**
 * The budget frontier's page (`/console/tasks/{name}/frontier?runs=…`): the curve of SBI and accuracy
 * after, by flip budget, and its table, each point a link to its relabel run.
 */
import { Layout } from "../../shared/layout.tsx";
import { BackLink, DataTable, Message, Panel } from "../../shared/components.tsx";
import { assetUrl } from "../../shared/assets.ts";
import { taskHref } from "../../shared/hrefs.ts";
import { ChartFigure } from "../../shared/charts/chart_frame.tsx";
import { fixed4, int, num, pct } from "../formats.ts";
import { runHref } from "../hrefs.ts";
import { FrontierChart } from "./frontier_chart.tsx";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

/** One point of the frontier: a kept relabel run's figures. */
export interface Point {
  runId: string;
  flipBudget: number;
  flips: number;
  sbi: number;
  signif: number;
  accuracy: number | null;
  objective: number | null;
  status: string;
}

export interface FrontierView {
  session: ConsoleSession;
  name: string;
  /** How many points the address names. */
  asked: number;
  /** The first point's run, whose figures before mitigation the page states. */
  first?: { summary: Record<string, unknown> };
  points: Point[];
}

export const FrontierPage = ({ session, name, asked, first, points }: FrontierView) => {
  const missing = asked - points.length;
  return (
    <Layout title={`${name}: budget frontier`} active="tasks" session={session}>
      <link rel="stylesheet" href={assetUrl("review.css")} />
      <link rel="stylesheet" href={assetUrl("cleaning-valuation.css")} />
      <BackLink href={taskHref(name)} class="crumbs">{name}</BackLink>
      <h1>Budget frontier</h1>
      {first && (
        <p class="muted">
          Before mitigation: SBI {fixed4(num(first.summary.sbi_score_before))},{" "}
          {int(num(first.summary.total_signif_regions_before))} significant regions, accuracy{" "}
          {pct(num(first.summary.accuracy_before))}. Each point is a relabel, kept as a run: select it to open
          its result and write it back.
        </p>
      )}
      {missing > 0 && (
        <Message
          kind="info"
          text={`${missing} of the ${asked} points are no longer kept (a task keeps its last 20 runs).`}
        />
      )}
      {points.length === 0
        ? <Message kind="info" text="No point of this frontier is kept any more." />
        : (
          <Panel id="frontier-title" title="SBI and accuracy after, by budget">
            <ChartFigure caption="SBI after (circles, solid line, left axis) and accuracy after (squares, dashed, right axis)">
              <FrontierChart
                id="frontier-chart"
                points={points.map((p) => ({ ...p, href: runHref(name, p.runId) }))}
              />
            </ChartFigure>
            <DataTable
              label="Frontier points, scrollable"
              caption="The frontier's points, by flip budget"
              captionHidden
              rows={points}
              columns={[
                {
                  head: "Flip budget",
                  rowHead: true,
                  num: true,
                  cell: (p) => <a href={runHref(name, p.runId)}>{int(p.flipBudget)}</a>,
                },
                { head: "Flips", num: true, cell: (p) => int(p.flips) },
                { head: "SBI after", num: true, cell: (p) => fixed4(p.sbi) },
                { head: "Significant after", num: true, cell: (p) => int(p.signif) },
                { head: "Accuracy after", num: true, cell: (p) => pct(p.accuracy) },
                { head: "Objective", num: true, cell: (p) => fixed4(p.objective) },
                { head: "Solver", cell: (p) => p.status },
              ]}
            />
          </Panel>
        )}
    </Layout>
  );
};
