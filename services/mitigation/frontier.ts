/**
 * The budget frontier of relabel (`mitigate/relabel/frontier`): one relabel per budget, ascending, each
 * through `mitigateByRelabel` and kept as its own run, all sharing the prepared dataset and the first
 * point's before-audit, each solver starting from the previous point's flips. Answers each point's
 * figures and run_id.
 */
import type { SpatialDeps } from "../spatial/audit.ts";
import { mitigateByRelabel, type SharedBefore } from "./relabel.ts";
import { type MitigationAnswer } from "./answers.ts";
import { type MitigationTarget } from "./live_mitigation.ts";
import { type RelabelSettings } from "./settings.ts";
import type { RunAnswer } from "../spatial/run_chunks.ts";

/** One point of the frontier: a relabel with `budget_constr`, as kept in its run. */
export interface FrontierPoint {
  budget_constr: number;
  flip_budget: number;
  solver_status_code: number;
  objective: number | null;
  bound: number | null;
  gap: number | null;
  n_flips: number;
  sbi_after: number;
  total_signif_regions_after: number;
  accuracy_after: number | null;
  positive_rate_after: number;
  solver_seconds: number;
  elapsed_ms: number;
  run_id: string;
  /** The point's maps (flips, after-audit), only with include_maps. */
  maps?: Record<string, unknown>;
}

export interface FrontierAnswer {
  budgets: number[];
  sbi_before: number;
  total_signif_regions_before: number;
  accuracy_before: number | null;
  points: FrontierPoint[];
  elapsed_ms: number;
}

export type FrontierInput = MitigationTarget & Omit<RelabelSettings, "budget"> & { budgets: number[] };

/** The budgets a frontier runs: ascending, each once. */
export const frontierBudgets = (budgets: number[]) => [...new Set(budgets)].sort((a, b) => a - b);

const MAP = /_(html|image)$/;

/** The map fields of a relabel answer left with include_maps (the before-audit's are the frontier's own). */
function pointMaps(a: RunAnswer<MitigationAnswer>): Record<string, unknown> {
  const after = a.audit_after_mitigation as Record<string, unknown>;
  const pick = (o: Record<string, unknown>) => Object.entries(o).filter(([k]) => MAP.test(k));
  return Object.fromEntries([
    ...pick(a as unknown as Record<string, unknown>),
    ["audit_after_mitigation", Object.fromEntries(pick(after))],
  ]);
}

function pointOf(budget: number, a: RunAnswer<MitigationAnswer>, includeMaps: boolean): FrontierPoint {
  const after = a.audit_after_mitigation;
  return {
    budget_constr: budget,
    flip_budget: a.flip_budget,
    solver_status_code: a.solver_status_code,
    objective: a.objective,
    bound: a.bound,
    gap: a.gap,
    n_flips: a.n_flips,
    sbi_after: after.sbi_score,
    total_signif_regions_after: after.total_signif_regions,
    accuracy_after: a.metrics_after?.accuracy ?? null,
    positive_rate_after: a.positive_rate_after,
    solver_seconds: a.solver_seconds,
    elapsed_ms: a.elapsed_ms,
    run_id: a.run_id,
    ...(includeMaps ? { maps: pointMaps(a) } : {}),
  };
}

/**
 * Relabels once per budget (ascending, de-duplicated): each point has the optimum a request with that
 * `budget_constr` would answer, its solver started from the previous point's flips (`shared.warm`) once
 * that point is solved; the previous point's audit after, maps and saving run beside it. Each point is
 * kept as its own run, in budget order. `request` is the validated frontier body; each run keeps it as a
 * relabel request (its `budgets` replaced by the point's `budget_constr`). A failed point stops the
 * points after it; those started before the failure was known finish, then the frontier answers the error.
 */
export async function relabelFrontier(deps: SpatialDeps, input: FrontierInput): Promise<FrontierAnswer> {
  const t0 = performance.now();
  const { budgets: asked, request, ...settings } = input;
  const budgets = frontierBudgets(asked);
  const { budgets: _b, ...relabelRequest } = (request ?? {}) as Record<string, unknown>;
  const shared: SharedBefore = {};
  const runs: Promise<RunAnswer<MitigationAnswer>>[] = [];
  let failed = false;
  for (const budget of budgets) {
    const solved = Promise.withResolvers<void>();
    const run = mitigateByRelabel(deps, {
      ...settings,
      budget,
      shared,
      point: { solved: solved.resolve, previous: runs.at(-1) ?? null },
      request: { ...relabelRequest, budget_constr: budget },
    });
    runs.push(run);
    await Promise.race([solved.promise, run.then(() => {}, () => (failed = true))]);
    if (failed) break;
  }
  const settled = await Promise.allSettled(runs);
  const failure = settled.find((s) => s.status === "rejected");
  if (failure) throw failure.reason;
  const answers = settled.map((s) => (s as PromiseFulfilledResult<RunAnswer<MitigationAnswer>>).value);
  const points = answers.map((a, i) => pointOf(budgets[i], a, settings.includeMaps === true));
  const before = answers[0].audit_before_mitigation;
  return {
    budgets,
    sbi_before: before.sbi_score,
    total_signif_regions_before: before.total_signif_regions,
    accuracy_before: answers[0].metrics_before?.accuracy ?? null,
    points,
    elapsed_ms: Math.round(performance.now() - t0),
  };
}
