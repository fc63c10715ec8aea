/**
 * The spatial audit over the worker pool, using every worker: one task builds scope, regions and the
 * Monte Carlo plan (into SharedArrayBuffers, so every worker reads the same plan without a copy), then
 * each worker runs its own range of worlds (a world depends only on seed and its number, so the split
 * never changes the answer), and the summary (sorting W maxima, R comparisons) runs here.
 * The route calls `spatialAudit(pool, request)`; the event loop stays free throughout.
 */
import type { WorkerPool } from "./pool.ts";
import {
  type AuditOutput,
  type AuditPlan,
  checkAuditParams,
  planAudit,
  simulateWorlds,
  summarizeAudit,
} from "../core/spatial/audit.ts";
import { buildRegions, flattenRegionIds, KMEANS_SEED, type RegionLists } from "../core/spatial/regions.ts";
import { scopeOf } from "../core/spatial/load.ts";
import { LANES } from "../core/spatial/plan.ts";
import type { Individuals, Regions, Ring, RngMode } from "../core/spatial/types.ts";

export interface SpatialAuditRequest {
  /** Every individual of the collection, in insertion order (only the audit's columns are sent on). */
  individuals: Individuals;
  equalOpp: boolean;
  /** The request's `region` polygons as rings of [lon, lat], or null. */
  polygons: Ring[] | null;
  nWorlds: number;
  signifLevel: number;
  seed: number;
  rng: RngMode;
  /** Predictions to audit instead of individuals.yPred (same indexing), e.g. after a mitigation. */
  yPred?: Uint8Array;
  /** Scope and regions of an earlier audit of the same individuals, to skip building them again. */
  prepared?: { scope: Int32Array; regions: Regions };
}

export interface SpatialAuditReply {
  audit: AuditOutput;
  /** Regions over scope positions (for the maps); scope = positions of the audited individuals. */
  regions: Regions;
  scope: Int32Array;
}

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

interface Prepared {
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
  // k-means takes the notes' fixed seed, not the request's: the seed moves the worlds, not the regions
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
  // k-means takes the notes' fixed seed, as in the audit
  return buildRegions(p.ind, all, p.polygons, KMEANS_SEED);
}

/** Entries for workers/tasks.ts. */
export const SPATIAL_TASKS = {
  "spatial.regions": regionsOfAll,
  "spatial.prepare": prepare,
  "spatial.worlds": (p: { plan: AuditPlan; seed: number; w0: number; w1: number }) =>
    simulateWorlds(p.plan, p.seed, p.w0, p.w1),
};

/** The payload of prepare: copies of what the pool would otherwise move out of the caller's hands. */
function preparePayload(req: SpatialAuditRequest): PreparePayload {
  const ind = req.individuals;
  const copyRegions = (r: Regions): Regions => ({ ...r, members: r.members.map((m) => m.slice()) });
  const lists = ind.regionIds && !req.prepared ? flattenRegionIds(ind.regionIds) : null;
  // Coordinates form the regions (rules 2 and 3), or draw rule 1's regions as convex hulls.
  const needCoords = !req.prepared;
  return {
    ind: {
      n: ind.n,
      // document ids only serve the message of a region id beyond the polygon list
      docIds: req.polygons && ind.regionIds && !req.prepared ? ind.docIds : [],
      yPred: (req.yPred ?? ind.yPred).slice(),
      yTrue: ind.yTrue?.slice() ?? null,
      lat: needCoords ? ind.lat?.slice() ?? null : null,
      lon: needCoords ? ind.lon?.slice() ?? null : null,
      regionIds: null, // sent flattened, as `lists`
      prob: null,
    },
    lists,
    equalOpp: req.equalOpp,
    polygons: req.polygons,
    seed: req.seed,
    rng: req.rng,
    prepared: req.prepared
      ? { scope: req.prepared.scope.slice(), regions: copyRegions(req.prepared.regions) }
      : null,
  };
}

/** Splits worlds 0..W-1 into one range per worker, in whole blocks of LANES worlds where possible. */
export function worldRanges(W: number, parts: number): [number, number][] {
  const per = Math.ceil(Math.ceil(W / parts) / LANES) * LANES;
  const out: [number, number][] = [];
  for (let w0 = 0; w0 < W; w0 += per) out.push([w0, Math.min(W, w0 + per)]);
  return out;
}

/** The audit of a request over every worker of the pool (see the module comment). */
export async function spatialAudit(
  pool: WorkerPool,
  req: SpatialAuditRequest,
  opts: { timeoutMs?: number } = {},
): Promise<SpatialAuditReply> {
  checkAuditParams(req.nWorlds, req.signifLevel, req.seed, req.rng);
  const t0 = performance.now();
  const prep = await pool.run<Prepared>("spatial.prepare", preparePayload(req), opts);
  const t1 = performance.now();
  const parts = await Promise.all(
    worldRanges(req.nWorlds, pool.size).map(([w0, w1]) =>
      pool.run<Float64Array>("spatial.worlds", { plan: prep.plan, seed: req.seed, w0, w1 }, opts)
    ),
  );
  const worldMax = new Float64Array(req.nWorlds);
  let at = 0;
  for (const part of parts) (worldMax.set(part, at), at += part.length);
  const t2 = performance.now();
  const summary = summarizeAudit(prep.plan, prep.regions, worldMax, {
    signifLevel: req.signifLevel,
    seed: req.seed,
    rng: req.rng,
  });
  const timing_ms = { plan: t1 - t0, worlds: t2 - t1, summary: performance.now() - t2 };
  return { audit: { ...summary, timing_ms }, regions: prep.regions, scope: prep.scope };
}
