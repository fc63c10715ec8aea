/**
 * Where PROMIS-Exact over many overlapping units starts: a bound that counts integrality
 * (exact_rate_bound.ts) and an incumbent near it. The incumbent is the flips of the real-valued zero-gap
 * solution at the D of the smallest bound (every region at the overall rate there), rounded against the
 * regions' errors (exact_round.ts), then improved by local search (exact_local.ts). When no zero-gap point
 * fits the budget there, the budget binds: the rounded PROMIS-Approx solution, the rounded smooth
 * relaxation (exact_budget.ts) and the hull relaxation dived to integers (exact_hull.ts, exact_dive.ts),
 * whose Lagrangian bounds also see the budget, compete for the start, and a second hull point at another D
 * starts a second search, on a second core where the caller gives one (SearchElsewhere).
 * The depth-first search (exact_overlapping.ts) then gets what is left of the work limit.
 */
import { type ApproxRows, approxRows, withinCaps } from "./approx_bound.ts";
import { type Chains, chainsOf } from "./approx_chains.ts";
import { solveApprox } from "./approx.ts";
import { budgetStart } from "./exact_budget.ts";
import { diveHull } from "./exact_dive.ts";
import { ALL_PIECES, EDGE_PIECES, type HullPoint, hullWindow } from "./exact_hull.ts";
import { roundHerded } from "./exact_round.ts";
import { type Flips, improveFlips, iterateFlips, type Neighbourhood } from "./exact_local.ts";
import { capsKept, exactObjective, positivesAfter } from "./exact_objective.ts";
import { type RateBound, rateBound } from "./exact_rate_bound.ts";
import { unitFlipCounts } from "./flips.ts";
import type { MitigationProblem } from "./problem.ts";
import { GAP_TOLERANCE, hasSolution, type OnProgress, relativeGap } from "./status.ts";
import { solveZeroGap, zeroGapOutOfReach } from "./zero_gap.ts";

/** The candidate flips that keep the budget, the window and the caps, lowest objective first. */
function ranked(
  pr: MitigationProblem,
  t: Float64Array,
  candidates: (Int32Array | null)[],
): { k: Int32Array; value: number }[] {
  const kept: { k: Int32Array; value: number }[] = [];
  for (const k of candidates) {
    if (!k) continue;
    const { x, D, used } = positivesAfter(pr, k);
    if (used > pr.C || D < pr.dMin || D > pr.dMax || !capsKept(pr, k)) continue;
    kept.push({ k, value: exactObjective(pr, t, x, pr.P + D) });
  }
  return kept.sort((a, b) => a.value - b.value);
}

/** The candidate flips of lowest objective among those that keep the budget, the window and the caps. */
function bestOf(
  pr: MitigationProblem,
  t: Float64Array,
  candidates: (Int32Array | null)[],
): { k: Int32Array | null; value: number } {
  return ranked(pr, t, candidates)[0] ?? { k: null, value: Infinity };
}

/** The approx rows and their chains, built once for every solve at a fixed D (they do not depend on D). */
interface Rows {
  rows: ApproxRows;
  chains: Chains;
}

/** The zero-gap least-squares flips at D (real, per unit), or null when they do not fit the budget or the caps. */
function zeroGapAt(pr: MitigationProblem, { rows, chains }: Rows, D: number, deadline: number) {
  const fixed = { ...pr, dMin: D, dMax: D }, zero = solveZeroGap(fixed, rows, deadline, undefined, chains);
  // least squares knows no caps (max_flips_per_region): its flips serve only where they keep them
  return zero && withinCaps(rows, fixed, zero.x) ? zero.x.map(Math.abs) : null;
}

/** Stretches the window is cut into, each offering its D of lowest B(P') to least squares. */
const STRETCHES = 16;

/**
 * A D other than dBest where the zero-gap least squares fits the budget, tried at the lowest B(P') of each
 * of STRETCHES equal stretches of the window, lowest first; null when none fits by `deadline`. Where the
 * budget binds at dBest (a window's edge needs most of it for D alone) it may not bind further in.
 */
function fittingD(
  pr: MitigationProblem,
  rc: Rows,
  perD: Float64Array,
  dBest: number,
  deadline: number,
): number | null {
  if (zeroGapOutOfReach(pr, rc.rows)) return null;
  const W = perD.length, lows: number[] = [];
  for (let s = 0; s < STRETCHES; s++) {
    let at = -1;
    for (let j = Math.floor((s * W) / STRETCHES); j < Math.floor(((s + 1) * W) / STRETCHES); j++) {
      if (at < 0 || perD[j] < perD[at]) at = j;
    }
    if (at >= 0 && perD[at] < Infinity && pr.dMin + at !== dBest) lows.push(at);
  }
  lows.sort((a, b) => perD[a] - perD[b]);
  for (const j of lows) {
    if (performance.now() > deadline) break;
    if (zeroGapAt(pr, rc, pr.dMin + j, deadline)) return pr.dMin + j;
  }
  return null;
}

/**
 * A local search run on another core (workers/search_elsewhere.ts): from `start`, newP free, then kicks
 * (exact_local.ts searchAndKick), for `ms` milliseconds. `result` is null when it failed; `stop` ends it.
 */
export type SearchElsewhere = (
  pr: MitigationProblem,
  start: Int32Array,
  ms: number,
) => { result: Promise<Flips | null>; stop: () => void };

/** The search's start: flips (null if none was found), the bound over every integer solution, seconds. */
export interface ExactStart {
  start: Int32Array | null;
  bound: number;
  seconds: number;
}

/**
 * Shares of the work limit, each an end counted from t0: the zero-gap or approx solve; where the budget
 * binds, then the relaxations (exact_budget.ts, exact_hull.ts); the local search.
 */
const SEED_SHARE = 0.5, RELAX_SHARE = 0.7, LOCAL_SHARE = 0.9;

/**
 * The share of the work limit a hull started before RELAX_SHARE may run past it (one takes 2-3.5 s at 206k):
 * where the budget binds everywhere each lifts the bound by percents, and towards an edge the last one is
 * often the best start for the dive (LAR-like SP 0.05: the hull at −8,198, solved last, dived and searched to
 * 3.244-3.248; without it, from −8,461, 3.270, as in the service, where hulls run slower).
 */
const HULL_OVERRUN = 0.1;

/** The most of the work limit one hull point's dive may take (at 206k it takes 1-2 s). */
const DIVE_SHARE = 0.1;

/**
 * Units from which the search after the start has no chance to finish: the local search's kicks take its
 * time, up to LOCAL_SHARE_LARGE of the limit.
 */
const KICK_UNITS = 2_000, LOCAL_SHARE_LARGE = 0.97;

/**
 * The bound and the improved incumbent of `pr` (t: statistic.ts xlogxTable(N)) within the work limit.
 * `elsewhere`: a search on another core, where the budget binds (none: all on this one).
 */
export async function exactStart(
  pr: MitigationProblem,
  t: Float64Array,
  workLimitSeconds: number,
  onProgress?: OnProgress,
  elsewhere?: SearchElsewhere,
): Promise<ExactStart> {
  const other: Other = { search: null };
  try {
    return await startWith(pr, t, workLimitSeconds, onProgress, elsewhere, other);
  } finally {
    other.search?.stop();
  }
}

/** The search on another core, once there is one. */
interface Other {
  search: ReturnType<SearchElsewhere> | null;
}

/** What the steps of one exactStart share. */
interface Run {
  pr: MitigationProblem;
  t: Float64Array;
  /** performance.now() ms at the start, and the work limit in ms. */
  t0: number;
  limit: number;
  rc: Rows;
  /** Many units: the search cannot finish, kicks take its time. */
  large: boolean;
  /** performance.now() ms at which the local search ends. */
  end: number;
  onProgress?: OnProgress;
  /** Starts the search on another core from these flips, when there is one and it has not started yet. */
  help: (from: Int32Array | null) => void;
  other: Other;
}

/** exactStart's work; `other` holds the search on another core once it starts, so that it can be stopped. */
async function startWith(
  pr: MitigationProblem,
  t: Float64Array,
  workLimitSeconds: number,
  onProgress: OnProgress | undefined,
  elsewhere: SearchElsewhere | undefined,
  other: Other,
): Promise<ExactStart> {
  const t0 = performance.now(), limit = workLimitSeconds * 1000;
  const seconds = () => (performance.now() - t0) / 1000;
  const rate = rateBound(pr, t), dBest = rate.dBest;
  if (dBest === null) return { start: null, bound: rate.bound, seconds: seconds() };
  onProgress?.({ phase: "exact search", objective: null, bound: rate.bound });
  const rows = approxRows(pr), rc: Rows = { rows, chains: chainsOf(rows) };
  const large = pr.unitSign.length >= KICK_UNITS,
    end = t0 + (large ? LOCAL_SHARE_LARGE : LOCAL_SHARE) * limit;
  // a second core searches from the second start (or else from the best, seeded apart), so that
  // both searches get their kicks: this one leaves it
  const help = (from: Int32Array | null) => {
    const k = from && bestOf(pr, t, [from]).k;
    if (elsewhere && large && k && !other.search && end - performance.now() > 1000) {
      other.search = elsewhere(pr, k, end - performance.now());
    }
  };
  const run: Run = { pr, t, t0, limit, rc, large, end, onProgress, help, other };
  const zero = zeroGapAt(pr, rc, dBest, t0 + SEED_SHARE * limit);
  const zeroStart = zero && roundHerded(pr, t, zero, dBest);
  const { start, second, bound } = zeroStart
    ? { start: zeroStart, second: null, bound: rate.bound }
    : await bindingStart(run, rate, dBest);
  const found = start ? await searchFrom(run, start, second, bound, zero !== null) : null;
  return { start: found, bound, seconds: seconds() };
}

/**
 * Where the budget binds (no zero-gap point fits it): approx gives one incumbent; then relaxations bound what
 * B(P') cannot, and give more. The best start, a second one for the local search (null once the other core
 * has one) and the bound.
 */
async function bindingStart(run: Run, rate: RateBound, dBest: number) {
  const { pr, t, t0, limit, rc } = run;
  let bound = rate.bound, second: Int32Array | null = null;
  const left = Math.max(1e-3, (SEED_SHARE * limit - (performance.now() - t0)) / 1000);
  const approx = await solveApprox(pr, left, run.onProgress);
  const approxK = approx.unitDelta && hasSolution(approx.status)
    ? unitFlipCounts(pr, approx.unitDelta)
    : null;
  const candidates = [approxK], relaxEnd = t0 + RELAX_SHARE * limit;
  if (relaxEnd - performance.now() >= 1000) {
    const upper = bestOf(pr, t, candidates).value, env = rate.perD();
    // least squares fits at another D: the budget binds only towards an edge of the window, where the
    // smooth relaxations' multipliers lift nothing; hull relaxations go from that edge towards the D
    let towards = fittingD(pr, rc, env, dBest, relaxEnd), most = EDGE_PIECES;
    if (towards === null) {
      // the budget binds everywhere: smooth relaxations where the bound is lowest, and once they stop
      // lifting it, hull relaxations from approx's D outwards for the rest of the time
      const relaxed = budgetStart(pr, t, relaxEnd, upper, env);
      (bound = Math.max(bound, relaxed.bound), candidates.push(relaxed.start));
      if (relaxed.stalled) (towards = approxK ? positivesAfter(pr, approxK).D : 0, most = ALL_PIECES);
    }
    if (towards !== null) {
      const hull = hullStarts(run, env, { towards, deadline: relaxEnd, upper, most });
      (bound = Math.max(bound, hull.bound), candidates.push(hull.best), second = hull.second);
    }
    run.onProgress?.({ phase: "exact search", objective: null, bound });
  }
  const start = ranked(pr, t, candidates)[0]?.k ?? null;
  // no second hull point: the other core kicks from the best start too, seeded apart (the runner-up, a
  // rounding that no dive refined, searched to 28.4 on LAR-like EO 2,000, the best dive to 25.0)
  run.help(second ?? start);
  return { start, second: run.other.search ? null : second, bound };
}

/**
 * The hull relaxations over the window (exact_hull.ts hullWindow): their bound, and their best point and
 * second point (null if none, or once the other core has one) turned to integer flips.
 */
function hullStarts(
  run: Run,
  env: Float64Array,
  o: { towards: number; deadline: number; upper: number; most: number },
) {
  const { pr, t, limit } = run;
  // a hull point's integer flips: dived (exact_dive.ts), or rounded against the regions' errors where the
  // dive finds none; once per point (the settled one may also be the best)
  const dived = new Map<HullPoint, Int32Array>();
  const integer = (h: HullPoint) => {
    const k = dived.get(h) ?? diveHull(pr, t, h.k, h.D, performance.now() + DIVE_SHARE * limit, o.most) ??
      roundHerded(pr, t, h.k, h.D);
    dived.set(h, k);
    return k;
  };
  const hull = hullWindow(pr, t, run.rc, env, {
    ...o,
    overrun: HULL_OVERRUN * limit,
    // the second start settled before the hulls end: the other core need not wait for them
    settled: (h) => run.help(integer(h)),
  });
  return {
    bound: hull.bound,
    best: hull.best && integer(hull.best),
    second: hull.other && !run.other.search ? bestOf(pr, t, [integer(hull.other)]).k : null,
  };
}

/**
 * The local search from `start` with newP free, from `second` too, then with newP held first (exact_local.ts;
 * not where the budget binds on many units), then kicks, as time allows; the other core's answer when lower.
 * `zero`: least squares fitted the budget at the D of the smallest bound.
 */
async function searchFrom(
  run: Run,
  start: Int32Array,
  second: Int32Array | null,
  bound: number,
  zero: boolean,
): Promise<Int32Array> {
  const { pr, t, end, large } = run, hood: Neighbourhood = { near: null, ix: null };
  let better = improveFlips(pr, t, start, end, false, hood);
  run.onProgress?.({ phase: "exact search", objective: better.objective, bound });
  // a second hull point, at another D: its rounded objective does not tell how far the search takes it
  if (second && performance.now() < end) {
    const fromSecond = improveFlips(pr, t, second, end, false, hood);
    if (fromSecond.objective < better.objective) (better = fromSecond, start = second);
  }
  // where the budget binds and kicks follow (they keep newP), the search with newP held first lost to the
  // free one wherever traced (LAR-like SP 0.05, EO 0.05, EO 2,000): its time goes to the kicks
  if (performance.now() < end && !(large && !zero)) {
    const held = improveFlips(pr, t, start, end, true, hood);
    if (held.objective < better.objective) better = held;
  }
  // kicks only where the search that follows cannot finish anyway (a proof needs its time) and there is
  // a gap to close
  if (large && relativeGap(better.objective, bound) > GAP_TOLERANCE) {
    better = iterateFlips(pr, t, better, end, hood);
  }
  // the other core's search ends at the same time; where this one closed the gap, it is not waited for
  const open = relativeGap(better.objective, bound) > GAP_TOLERANCE;
  const there = open && run.other.search ? await run.other.search.result : null;
  const checked = bestOf(pr, t, [there?.k ?? null]);
  if (checked.k && checked.value < better.objective) better = { k: checked.k, objective: checked.value };
  run.onProgress?.({ phase: "exact search", objective: better.objective, bound });
  return better.k;
}
