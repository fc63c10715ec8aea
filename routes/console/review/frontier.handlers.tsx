/**
 * The review's budget frontier: the run of `relabelFrontier` (the JSON API's `mitigate/relabel/frontier`)
 * for the settings form's values, and its page (Post/Redirect/Get: the points are kept runs, so the page
 * reads them back from the run list).
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { render } from "../shared/components.tsx";
import { num } from "./formats.ts";
import { frontierHref } from "./hrefs.ts";
import { FrontierPage, type Point } from "./views/frontier_page.tsx";
import { type FrontierRequest, MAX_BUDGETS, toFrontierSettings } from "../../mitigation/frontier.schemas.ts";
import { relabelFrontier } from "../../../services/mitigation/frontier.ts";
import { listRuns } from "../../../services/spatial/runs.ts";
import { assertTasksEnabled } from "../../../services/tasks/task_documents.ts";

/** Runs the frontier of a validated form body; where its page is. */
export async function runFrontier(c: Context<ConsoleEnv>, name: string, body: FrontierRequest) {
  const target = { collectionName: name, requestedBy: c.var.session.sub, request: body };
  const answer = await relabelFrontier(c.var.deps, { ...target, ...toFrontierSettings(body) });
  return frontierHref(name, answer.points.map((p) => p.run_id));
}

export async function frontierPage(c: Context<ConsoleEnv>) {
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
  return render(
    c,
    <FrontierPage session={c.var.session} name={name} asked={ids.length} first={first} points={points} />,
  );
}
