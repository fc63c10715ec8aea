/**
 * The budget frontier of relabel (`mitigate/relabel/frontier`): one relabel per budget, ascending, each
 * through `mitigateByRelabel` and kept as its own run, all sharing the prepared dataset and the first
 * point's before-audit; the largest budget is solved first, and the others start from its flips or from a
 * smaller budget's. Answers each point's figures and run_id.
 */
import type { SpatialDeps } from "../spatial/audit.ts";
import { mitigateByRelabel, type SharedBefore, type SolvedPoint } from "./relabel.ts";
import { zeroFlipsFit } from "../../core/spatial/mitigate/same_flips.ts";
import { nextTurn } from "../../core/turns.ts";
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

/** Waits for `step` unless `run` fails first: its value, or null when the run failed. */
function unlessFailed<T>(step: Promise<T>, run: Promise<unknown>): Promise<T | null> {
  return Promise.race([step, run.then(() => step, () => null)]);
}

/**
 * Solves that run at once. On two workers two budget-bound solves beside each other end sooner than one
 * after the other, though each runs slower (BENCHMARKS.md); the previous point's flips save such a solve
 * under a tenth, so side by side wins.
 */
const SOLVES_AT_ONCE = 2;

/**
 * Relabels once per budget (ascending, de-duplicated): each point has the optimum a request with that
 * `budget_constr` would answer. The largest budget and the smallest two (one where the pool has a single
 * worker) start first, cold. The other budgets that the largest's flips fit when those reach 0 (past the
 * zero gap) take its answer at once (`point.same`: the solver would keep those flips as they are); the
 * rest run ascending after the smallest two, two solves at once, each started once the point two before
 * it in that sequence is solved, from its flips. What each starts from depends on the budgets alone, never
 * on timing. The audits after, maps and saving run beside. Each point is kept as its own run, in budget
 * order. `request` is the validated frontier body; each run keeps it as a relabel request (its `budgets`
 * replaced by the point's `budget_constr`). A failed point stops the points not yet started; those started
 * finish, then the frontier answers the error.
 */
export async function relabelFrontier(deps: SpatialDeps, input: FrontierInput): Promise<FrontierAnswer> {
  const t0 = performance.now();
  const { budgets: asked, request, ...settings } = input;
  const budgets = frontierBudgets(asked), last = budgets.length - 1;
  const { budgets: _b, ...relabelRequest } = (request ?? {}) as Record<string, unknown>;
  const shared: SharedBefore = {};
  const runs: Promise<RunAnswer<MitigationAnswer>>[] = [];
  const kept = budgets.map(() => Promise.withResolvers<void>());
  const started = budgets.map(() => Promise.withResolvers<void>());
  const solved = budgets.map(() => Promise.withResolvers<SolvedPoint>());
  let prior = -1; // each starts once the one before has started: the pool takes them in this order
  const start = async (k: number, warm: Float64Array | null, same?: SolvedPoint) => {
    if (prior >= 0 && await unlessFailed(started[prior].promise, runs[prior]) === null) return false;
    await nextTurn(); // a point's start is a few milliseconds of work: one a turn, not all in one
    const run = mitigateByRelabel(deps, {
      ...settings,
      budget: budgets[k],
      shared,
      point: {
        warm,
        same,
        started: started[k].resolve,
        solved: solved[k].resolve,
        previous: k > 0 ? kept[k - 1].promise : null,
      },
      request: { ...relabelRequest, budget_constr: budgets[k] },
    });
    run.then(() => kept[k].resolve(), () => kept[k].resolve());
    runs[k] = run;
    prior = k;
    return true;
  };
  const solution = (k: number) => unlessFailed(solved[k].promise, runs[k]);
  const lag = Math.max(1, Math.min(SOLVES_AT_ONCE, deps.pool.size));
  // the largest budget first, and beside it the smallest `lag`, cold
  const below = budgets.slice(0, -1).map((_, k) => k), chain = below.slice(0, lag);
  let ok = await start(last, null);
  for (const k of chain) ok &&= await start(k, null);
  const top = ok && last > 0 ? await solution(last) : null;
  if (top) {
    // the points the largest's zero-gap flips fit take its answer at once; the others join the chain
    for (const k of below.slice(lag)) {
      if (!zeroFlipsFit(top.result, settings.approx, budgets[k], top.scopeSize)) chain.push(k);
      else ok &&= await start(k, null, top);
    }
    for (let c = lag; ok && c < chain.length; c++) {
      const from = await solution(chain[c - lag]);
      ok = from !== null && await start(chain[c], from.result.unitDelta);
    }
  }
  kept.forEach((p, k) => runs[k] === undefined && p.resolve()); // points never started: none to wait for
  const settled = await Promise.allSettled(runs.filter((r) => r !== undefined));
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
