/**
 * The spatial audit's worker tasks: "spatial.prepare" builds scope, regions and the Monte Carlo plan
 * (into SharedArrayBuffers, so every worker reads the same plan without a copy), "spatial.worlds" runs
 * a range of worlds over it, "spatial.regions" builds the regions of every individual (the threshold
 * mitigation's). The caller's side, spreading an audit over the pool, is workers/spatial.ts.
 */
import { type AuditPlan, planAudit, simulateWorlds } from "../core/spatial/audit.ts";
import { buildRegions, KMEANS_SEED, type RegionLists } from "../core/spatial/regions.ts";
import { scopeOf } from "../core/spatial/load.ts";
import type { Individuals, Regions, Ring, RngMode } from "../core/spatial/types.ts";

/** What the prepare task needs (typed arrays are copied, since the pool transfers them). */
export interface PreparePayload {
  ind: Individuals;
  lists: RegionLists | null;
  equalOpp: boolean;
  polygons: Ring[] | null;
  seed: number;
  rng: RngMode;
  prepared: { scope: Int32Array; regions: Regions } | null;
}

export interface Prepared {
  scope: Int32Array;
  regions: Regions;
  plan: AuditPlan;
}

/** A copy of a typed array in shared memory: posted to several workers, it is shared, not moved. */
function shared<T extends Int32Array | Float64Array>(a: T): T {
  const Ctor = a.constructor as new (b: SharedArrayBuffer) => T;
  const out = new Ctor(new SharedArrayBuffer(a.byteLength));
  (out as Int32Array | Float64Array).set(a);
  return out;
}

function sharePlan(plan: AuditPlan): AuditPlan {
  const t = plan.tables;
  return {
    ...plan,
    observed: shared(plan.observed),
    scored: shared(plan.scored),
    scoredN: shared(plan.scoredN),
    scoredC: shared(plan.scoredC),
    sigCount: shared(plan.sigCount),
    sigOf: shared(plan.sigOf),
    sigRegStart: shared(plan.sigRegStart),
    sigRegs: shared(plan.sigRegs),
    xlx: shared(plan.xlx),
    tables: t && {
      tableOf: shared(t.tableOf),
      start: shared(t.start),
      size: shared(t.size),
      lo: shared(t.lo),
      prob: shared(t.prob),
      alias: shared(t.alias),
    },
  };
}

/** Scope, regions (built, or as prepared earlier) and the labels in scope. */
export function scoped(p: PreparePayload) {
  const scope = p.prepared?.scope ?? scopeOf(p.ind, p.equalOpp);
  // k-means takes its fixed seed, not the request's: the seed moves the worlds, not the regions
  const regions = p.prepared?.regions ?? buildRegions(p.ind, scope, p.polygons, KMEANS_SEED, p.lists);
  return { scope, regions, labels: Uint8Array.from(scope, (i) => p.ind.yPred[i]) };
}

/** Worker task "spatial.prepare": scope, regions and a shared plan. */
function prepare(p: PreparePayload): Prepared {
  const { scope, regions, labels } = scoped(p);
  return { scope, regions, plan: sharePlan(planAudit(labels, regions, p.rng)) };
}

/** Worker task "spatial.regions": regions over every individual (the threshold mitigation's). */
function regionsOfAll(p: { ind: Individuals; polygons: Ring[] | null }): Regions {
  const all = Int32Array.from({ length: p.ind.n }, (_, i) => i);
  // k-means takes its fixed seed, as in the audit
  return buildRegions(p.ind, all, p.polygons, KMEANS_SEED);
}

/** Entries for workers/tasks.ts. */
export const SPATIAL_TASKS = {
  "spatial.regions": regionsOfAll,
  "spatial.prepare": prepare,
  "spatial.worlds": (p: { plan: AuditPlan; seed: number; w0: number; w1: number }) =>
    simulateWorlds(p.plan, p.seed, p.w0, p.w1),
};
