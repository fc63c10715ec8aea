/**
 * The spatial audit over the worker pool, using every worker: rule 1's member lists are made by every
 * worker, each over a part of the scope (buildMembers), one task builds the rest of scope, regions and the
 * Monte Carlo plan (into SharedArrayBuffers, so every worker reads the same plan without a copy), then
 * each worker runs its own range of worlds (a world depends only on seed and its number, so the split
 * never changes the answer), and the summary (sorting W maxima, R comparisons) runs here. The tasks
 * themselves are in workers/tasks/spatial.ts. The audit service calls `spatialAudit(pool, request)`;
 * the event loop stays free throughout.
 */
import type { WorkerPool } from "../../workers/pool.ts";
import type { Prepared, PreparePayload } from "../../workers/tasks/spatial.ts";
import {
  assertAuditParams,
  type AuditOutput,
  type AuditPlan,
  summarizeAudit,
} from "../../core/spatial/audit.ts";
import { LANES } from "../../core/spatial/plan.ts";
import { memberBuffer } from "../../core/spatial/regions.ts";
import { sharedAlloc } from "../../core/memory.ts";
import type { Individuals, Regions, Ring, RngMode } from "../../core/spatial/types.ts";

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
  /** With `prepared`: the plan an earlier audit of the same labels built over them (shared memory). */
  plan?: AuditPlan;
  /**
   * With `prepared`: the plan of other labels over them (a mitigation's before-audit); the plan of these
   * labels then takes its signatures and remakes only the counts and samplers.
   */
  basePlan?: AuditPlan;
  /** With `prepared`: the world maxima already drawn over these regions with this seed, W and rng. */
  worlds?: WorldsMemo;
}

/**
 * World maxima kept by the number of positives: under the null a world draws every label from
 * Bernoulli(P/N) with the world's own stream, so its maximum depends on the regions, seed, W, rng and P
 * alone (not on which individuals are positive). An audit asked again, or the audit after a mitigation
 * that keeps the number of positives, finds its worlds drawn.
 */
export interface WorldsMemo {
  get(positives: number): Float64Array | undefined;
  put(positives: number, worldMax: Float64Array): void;
}

export interface SpatialAuditReply {
  audit: AuditOutput;
  /** Regions over scope positions (for the maps); scope = positions of the audited individuals. */
  regions: Regions;
  scope: Int32Array;
  /** The Monte Carlo plan of these labels over these regions, in shared memory. */
  plan: AuditPlan;
}

/**
 * The payload of prepare: only the columns it reads (the pool copies them; prepared scope and regions in
 * shared memory are shared). Coordinates and region ids form the regions, so they go only when the
 * regions are still to be built.
 */
function preparePayload(req: SpatialAuditRequest): PreparePayload {
  const ind = req.individuals, build = !req.prepared;
  return {
    ind: {
      n: ind.n,
      // document ids only serve the message of a region id beyond the polygon list
      docIds: req.polygons && ind.regionIds && build ? ind.docIds : [],
      yPred: req.yPred ?? ind.yPred,
      yTrue: ind.yTrue,
      lat: build ? ind.lat : null,
      lon: build ? ind.lon : null,
      regionIds: build ? ind.regionIds : null,
      prob: null,
    },
    equalOpp: req.equalOpp,
    polygons: req.polygons,
    seed: req.seed,
    rng: req.rng,
    prepared: req.prepared ?? null,
    base: req.prepared && req.basePlan?.rng === req.rng ? req.basePlan : null,
  };
}

/** Splits worlds 0..W-1 into one range per worker, in whole blocks of LANES worlds where possible. */
export function worldRanges(W: number, parts: number): [number, number][] {
  const per = Math.ceil(Math.ceil(W / parts) / LANES) * LANES;
  const out: [number, number][] = [];
  for (let w0 = 0; w0 < W; w0 += per) out.push([w0, Math.min(W, w0 + per)]);
  return out;
}

/**
 * The regions of every individual (a threshold mitigation's fit): rule 1's member lists over every worker
 * (buildMembers), other rules in a worker of `pool`, where only what forms them goes (document ids serve
 * only the message of a region id beyond the polygon list).
 */
export async function regionsOfEveryone(
  pool: WorkerPool,
  ind: Individuals,
  polygons: Ring[] | null,
): Promise<{ scope: Int32Array; regions: Regions }> {
  const built = pool.size > 1
    ? await buildMembers(pool, { individuals: ind, equalOpp: false, polygons })
    : null;
  if (built) return built;
  const docIds = polygons && ind.regionIds ? ind.docIds : [];
  return await pool.run("spatial.regions", { ind: { ...ind, docIds, yTrue: null, prob: null }, polygons });
}

/**
 * Scope, regions (unless `prepared`) and the Monte Carlo plan of a request, in shared memory. Rule 1's
 * member lists (region ids without polygons) are made by every worker, each over a part of the scope
 * (buildMembers); the rest, and every other rule, by one worker.
 */
export async function prepareAudit(
  pool: WorkerPool,
  req: SpatialAuditRequest,
  opts: { timeoutMs?: number } = {},
): Promise<Prepared> {
  const built = !req.prepared && pool.size > 1 ? await buildMembers(pool, req, opts) : null;
  return await pool.run(
    "spatial.prepare",
    preparePayload({ ...req, prepared: req.prepared ?? built ?? undefined }),
    opts,
  );
}

/**
 * Scope and rule 1's regions over every worker: one finds the scope and the regions' ids and cuts the
 * scope into parts of about as many memberships; each worker counts its part's members of each region,
 * the lists' one shared buffer is laid out from the counts, and each fills its part's places: the lists
 * buildRegions makes in one thread. Null when another rule applies.
 */
async function buildMembers(
  pool: WorkerPool,
  req: Pick<SpatialAuditRequest, "individuals" | "equalOpp" | "polygons">,
  opts: { timeoutMs?: number } = {},
): Promise<{ scope: Int32Array; regions: Regions } | null> {
  const { individuals: ind, equalOpp, polygons } = req;
  if (!ind.regionIds) return null;
  const made = await pool.run("spatial.members", {
    ind: { ...ind, docIds: [], yPred: new Uint8Array(0), lat: null, lon: null, prob: null },
    equalOpp,
    polygons,
    parts: pool.size,
  }, opts);
  if (!made) return null;
  const { source, cuts } = made;
  const parts = cuts.slice(1).map((to, k) => ({ source, from: cuts[k], to }));
  const sizes = await Promise.all(parts.map((part) => pool.run("spatial.count_members", part, opts)));
  const { all, next, members } = memberBuffer(sizes, sharedAlloc);
  await Promise.all(
    parts.map((part, k) => pool.run("spatial.fill_members", { ...part, all, next: next[k] }, opts)),
  );
  return {
    scope: source.scope,
    regions: { source: "region_ids", ids: source.ids, members, polygons: null, unassigned: 0 },
  };
}

/** The maxima of worlds 0..W-1 of a plan, each worker its range of them. */
async function drawWorlds(
  pool: WorkerPool,
  req: SpatialAuditRequest,
  plan: AuditPlan,
  opts: { timeoutMs?: number },
): Promise<Float64Array> {
  const parts = await Promise.all(
    worldRanges(req.nWorlds, pool.size).map(([w0, w1]) =>
      pool.run("spatial.worlds", { plan, seed: req.seed, w0, w1 }, opts)
    ),
  );
  const worldMax = new Float64Array(req.nWorlds);
  let at = 0;
  for (const part of parts) (worldMax.set(part, at), at += part.length);
  return worldMax;
}

/** The audit of a request over every worker of the pool (see the module comment). */
export async function spatialAudit(
  pool: WorkerPool,
  req: SpatialAuditRequest,
  opts: { timeoutMs?: number } = {},
): Promise<SpatialAuditReply> {
  assertAuditParams(req.nWorlds, req.signifLevel, req.seed, req.rng);
  const t0 = performance.now();
  const prep = req.prepared && req.plan
    ? { ...req.prepared, plan: req.plan }
    : await prepareAudit(pool, req, opts);
  const t1 = performance.now();
  // the memo holds worlds over prepared regions only
  const memo = req.prepared ? req.worlds : undefined, known = memo?.get(prep.plan.positives);
  const worldMax = known ? known.slice() : await drawWorlds(pool, req, prep.plan, opts);
  if (!known) memo?.put(prep.plan.positives, worldMax.slice());
  const t2 = performance.now();
  const summary = summarizeAudit(prep.plan, prep.regions, worldMax, {
    signifLevel: req.signifLevel,
    seed: req.seed,
    rng: req.rng,
  });
  const timing_ms = { plan: t1 - t0, worlds: t2 - t1, summary: performance.now() - t2 };
  return { audit: { ...summary, timing_ms }, regions: prep.regions, scope: prep.scope, plan: prep.plan };
}
