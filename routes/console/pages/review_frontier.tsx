/**
 * The review's budget frontier: the "Frontier budgets (%)" field and its button in the settings form,
 * the run of `relabelFrontier` (the JSON API's `mitigate/relabel/frontier`) for the form's settings, and
 * its page, `/console/tasks/{name}/frontier?runs=…` (Post/Redirect/Get: the points are kept runs, so
 * the page reads them back from the run list): the curve and a table, each point a link to its relabel.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { Layout } from "../shared/layout.tsx";
import {
  BackLink,
  DataTable,
  Field,
  type FormState,
  Message,
  Panel,
  render,
  Submit,
} from "../shared/components.tsx";
import { assetUrl } from "../shared/assets.ts";
import { ChartFigure } from "../shared/charts.tsx";
import { FrontierChart } from "../frontier_chart.tsx";
import { fixed4, int, pct, runHref } from "./review_parts.tsx";
import { taskHref } from "../shared/hrefs.ts";
import { type FrontierRequest, MAX_BUDGETS, toFrontierSettings } from "../../mitigation/frontier.schemas.ts";
import { relabelFrontier } from "../../../services/mitigation/frontier.ts";
import { listRuns } from "../../../services/spatial/runs.ts";
import { assertTasksEnabled } from "../../../services/tasks/task_documents.ts";

/** The frontier's page, showing the points kept as these runs. */
export const frontierHref = (task: string, runIds: string[]) =>
  `${taskHref(task)}/frontier?runs=${runIds.map(encodeURIComponent).join(",")}`;

/** The form's budgets: percentages separated by commas or spaces, as fractions (errors under the field). */
export function percentList(text: string, errors: Record<string, string>): number[] | undefined {
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  const values = parts.map(Number);
  if (values.some((v) => !Number.isFinite(v) || v < 0 || v > 100)) {
    errors.frontier_pcts = "Enter percentages from 0 to 100, separated by commas.";
    return undefined;
  }
  return values.map((v) => v / 100);
}

/** The frontier's part of the settings form (inside "Relabel": it runs relabel once per budget). */
export const FrontierFields = ({ state }: { state: FormState }) => (
  <>
    <Field
      label="Frontier budgets (%)"
      name="frontier_pcts"
      state={state}
      autocomplete="off"
      hint={`Up to ${MAX_BUDGETS} budgets, separated by commas: one relabel each`}
    />
    <Submit label="Budget frontier" name="action" value="frontier" busy="Running the frontier…" />
  </>
);

/** Runs the frontier of a validated form body; where its page is. */
export async function runFrontier(c: Context<ConsoleEnv>, name: string, body: FrontierRequest) {
  const target = { collectionName: name, requestedBy: c.var.session.sub, request: body };
  const answer = await relabelFrontier(c.var.deps, { ...target, ...toFrontierSettings(body) });
  return frontierHref(name, answer.points.map((p) => p.run_id));
}

interface Point {
  runId: string;
  flipBudget: number;
  flips: number;
  sbi: number;
  signif: number;
  accuracy: number | null;
  objective: number | null;
  status: string;
}

const num = (v: unknown) => (typeof v === "number" ? v : null);

async function frontierPage(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "";
  assertTasksEnabled(c.var.deps.config);
  const ids = (c.req.query("runs") ?? "").split(",").filter(Boolean).slice(0, MAX_BUDGETS);
  const runs = new Map((await listRuns(c.var.deps, name)).map((r) => [r.run_id, r]));
  const points: Point[] = ids.flatMap((id) => {
    const r = runs.get(id);
    if (!r || r.kind !== "relabel") return [];
    const s = r.summary;
    return [{
      runId: id,
      flipBudget: num(s.flip_budget) ?? 0,
      flips: num(s.n_flips) ?? 0,
      sbi: num(s.sbi_score_after) ?? 0,
      signif: num(s.total_signif_regions_after) ?? 0,
      accuracy: num(s.accuracy_after),
      objective: num(s.objective),
      status: String(s.solver_status_message ?? ""),
    }];
  }).sort((a, b) => a.flipBudget - b.flipBudget);
  const first = ids.map((id) => runs.get(id)).find((r) => r?.kind === "relabel");
  const missing = ids.length - points.length;
  return render(
    c,
    <Layout title={`${name}: budget frontier`} active="tasks" session={c.var.session}>
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
          text={`${missing} of the ${ids.length} points are no longer kept (a task keeps its last 20 runs).`}
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
    </Layout>,
  );
}

/** Adds the frontier's page (before the console's catch-all). */
export function frontierRoutes(app: Hono<ConsoleEnv>, page: MiddlewareHandler<ConsoleEnv>): void {
  app.get("/console/tasks/:name/frontier", page, frontierPage);
}
