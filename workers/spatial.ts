/**
 * The spatial audit over the worker pool, using every worker: one task builds scope, regions and the
 * Monte Carlo plan (into SharedArrayBuffers, so every worker reads the same plan without a copy), then
 * each worker runs its own range of worlds (a world depends only on seed and its number, so the split
 * never changes the answer), and the summary (sorting W maxima, R comparisons) runs here. The tasks
 * themselves are in workers/spatial_tasks.ts. The audit service calls `spatialAudit(pool, request)`;
 * the event loop stays free throughout.
 */
import type { WorkerPool } from "./pool.ts";
import type { PreparePayload } from "./spatial_tasks.ts";
import { type AuditOutput, checkAuditParams, summarizeAudit } from "../core/spatial/audit.ts";
import { flattenRegionIds } from "../core/spatial/regions.ts";
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
  const prep = await pool.run("spatial.prepare", preparePayload(req), opts);
  const t1 = performance.now();
  const parts = await Promise.all(
    worldRanges(req.nWorlds, pool.size).map(([w0, w1]) =>
      pool.run("spatial.worlds", { plan: prep.plan, seed: req.seed, w0, w1 }, opts)
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
