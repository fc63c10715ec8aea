/**
 * The spatial audit of a task (spec 2 `audit`), and the steps the mitigations repeat around their
 * solver: audit typed columns over the worker pool, draw an audit's maps in a worker, and shape the
 * audit part of an answer.
 */
import type { Config } from "../../config.ts";
import type { AuditOutput } from "../../core/spatial/audit.ts";
import type { Mapping } from "../../core/spatial/mapping.ts";
import { MAX_DRAWN, samplePoints } from "../../core/spatial/maps/sample.ts";
import type { MapPoints } from "../../core/spatial/maps/inputs.ts";
import type { Individuals, Regions, RegionSource, Ring, RngMode } from "../../core/spatial/types.ts";
import type { Store } from "../../store/store.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import { spatialAudit, type SpatialAuditReply } from "../../workers/spatial.ts";
import type { AuditMaps, AuditMapsPayload } from "../../workers/maps.ts";
import { loadIndividuals } from "./individuals.ts";
import { taskCollection } from "./task_collection.ts";
import { datasetGeneration } from "../datasets/registry.ts";
import { keepRun, type RunAnswer, type RunSource } from "./runs.ts";

/** What the spatial and mitigation services use: the store, the worker pool, the configuration. */
export interface SpatialDeps {
  store: Store;
  pool: WorkerPool;
  config: Config;
}

/** The audit settings of a request (audit, relabel and threshold share them), validated at the edge. */
export interface AuditSettings {
  /** Monte Carlo worlds W. */
  nWorlds: number;
  /** α in (0, 1). */
  signifLevel: number;
  /** Audit true-positive rates (individuals with y_true = 1) instead of positive rates. */
  equalOpp: boolean;
  /** Draw every individual in the distribution map instead of at most MAX_DRAWN. */
  fullDistribution: boolean;
  /** The request's region polygons, or null (regions from region_ids or k-means). */
  polygons: Ring[] | null;
  /** The fields the request mapped; keys left out take their defaults. */
  mapping: Partial<Mapping> | undefined;
  /** Seed of the worlds and of the map's sample; with rng "numpy", seed + nWorlds - 1 < 2^32. */
  seed: number;
  rng: RngMode;
  /** Answer the maps inline (default); false leaves them out, and the stored run still has them. */
  includeMaps?: boolean;
}

/** An audit's statistics (without the raw world maxima and timings), its regions' origin and its maps. */
export type AuditPayload =
  & Omit<AuditOutput, "world_max" | "timing_ms">
  & { regions_source: RegionSource; unassigned_individuals: number }
  & AuditMaps;

/** The answer of `audit`. */
export type AuditAnswer = AuditPayload & { elapsed_ms: number };

/** Audits `yPred` (default: the collection's) with the request's Monte Carlo settings. */
export function auditOf(
  pool: WorkerPool,
  ind: Individuals,
  settings: AuditSettings,
  extra: { yPred?: Uint8Array; prepared?: { scope: Int32Array; regions: Regions } } = {},
): Promise<SpatialAuditReply> {
  return spatialAudit(pool, {
    individuals: ind,
    equalOpp: settings.equalOpp,
    polygons: settings.polygons,
    nWorlds: settings.nWorlds,
    signifLevel: settings.signifLevel,
    seed: settings.seed,
    rng: settings.rng,
    ...extra,
  });
}

/** Dots for a map: the chosen individuals' coordinates and class (at most MAX_DRAWN unless `full`). */
export function mapPoints(
  ind: Individuals,
  positions: Int32Array,
  cls: ArrayLike<number>,
  full: boolean,
  seed: number,
): { points: MapPoints | null; drawnOf: number } {
  if (!ind.lat || !ind.lon) return { points: null, drawnOf: positions.length };
  const pick = samplePoints(positions.length, full ? positions.length : MAX_DRAWN, seed);
  const lon = new Float64Array(pick.length),
    lat = new Float64Array(pick.length),
    k = new Uint8Array(pick.length);
  pick.forEach((j, i) => {
    const at = positions[j];
    lon[i] = ind.lon![at];
    lat[i] = ind.lat![at];
    k[i] = cls[j];
  });
  return { points: { lon, lat, cls: k }, drawnOf: positions.length };
}

/** How a map is drawn: every dot or a sample (by `seed`), its title, and the colour scale's cap. */
export interface MapSettings {
  full: boolean;
  seed: number;
  title: string;
  cap?: number;
  /** The audit compares true-positive rates: the maps say so. */
  equalOpp?: boolean;
  /** The HTML maps' tile layer (config MAP_TILE_URL); unset: the embedded vector base map. */
  tileUrl?: string;
}

/**
 * What a map task draws: an audit reply's regions and statistics, with a dot for each individual at
 * `positions` (a sample of them unless `full`) in the class `yPred` gives it. The audit maps and the
 * flips map are drawn from the same payload.
 */
export function mapsPayload(
  ind: Individuals,
  reply: SpatialAuditReply,
  positions: Int32Array,
  yPred: Uint8Array,
  opts: MapSettings,
): AuditMapsPayload {
  const cls = Uint8Array.from(positions, (i) => yPred[i]);
  const { points, drawnOf } = mapPoints(ind, positions, cls, opts.full, opts.seed);
  const { world_max: _w, ...audit } = reply.audit;
  const { title, cap, equalOpp, tileUrl } = opts;
  return { regions: reply.regions, audit, points, options: { title, drawnOf, cap, equalOpp, tileUrl } };
}

/** The fair map and the distribution map of an audit, HTML and PNG, drawn in a worker. */
export function auditMaps(
  pool: WorkerPool,
  ind: Individuals,
  reply: SpatialAuditReply,
  yPred: Uint8Array,
  opts: MapSettings,
): Promise<AuditMaps> {
  return pool.run("maps.audit", mapsPayload(ind, reply, reply.scope, yPred, opts));
}

/** The audit part of an answer: statistics without the raw world maxima, and the maps. */
export function auditPayload(reply: SpatialAuditReply, maps: AuditMaps): AuditPayload {
  const { world_max: _w, timing_ms: _t, ...audit } = reply.audit;
  return {
    ...audit,
    regions_source: reply.regions.source,
    unassigned_individuals: reply.regions.unassigned,
    ...maps,
  };
}

/**
 * The individuals of a task's collection as the request maps them (y_true when it audits equal
 * opportunity, y_pred_prob when asked), with the whole mapping read and where they came from (for the
 * run): where an audit and each mitigation start.
 */
export async function taskIndividuals(
  deps: SpatialDeps,
  input: Pick<AuditSettings, "mapping" | "equalOpp"> & { collectionName: string },
  needs: { prob: boolean },
): Promise<{ ind: Individuals; mapping: Mapping; source: RunSource }> {
  const ref = await taskCollection(deps, input.collectionName);
  // read before the rows: an import that changes them from now on leaves the run a stale generation
  const generation = await datasetGeneration(deps.store, deps.config.TESSERA_DB, ref);
  const loaded = await loadIndividuals(deps.store, ref, input.mapping, {
    yTrue: input.equalOpp,
    prob: needs.prob,
  });
  return { ...loaded, source: { db: ref.db, collection: ref.collection, generation } };
}

/** Who asked for a run and how (kept with it): the caller, and the request body as validated. */
export interface RunOrigin {
  requestedBy?: string;
  request?: unknown;
}

/** Audits a task's collection and draws its maps: the reviewer's first look at where a model is unfair. */
export async function auditTask(
  deps: SpatialDeps,
  input: AuditSettings & RunOrigin & { collectionName: string },
): Promise<RunAnswer<AuditAnswer>> {
  const t0 = performance.now();
  const { ind, mapping, source } = await taskIndividuals(deps, input, { prob: false });
  const reply = await auditOf(deps.pool, ind, input);
  const maps = await auditMaps(deps.pool, ind, reply, ind.yPred, {
    full: input.fullDistribution,
    seed: input.seed,
    title: `Spatial audit of ${input.collectionName}`,
    equalOpp: input.equalOpp,
    tileUrl: deps.config.MAP_TILE_URL,
  });
  const answer = { ...auditPayload(reply, maps), elapsed_ms: Math.round(performance.now() - t0) };
  const run = { kind: "audit" as const, task: input.collectionName, source, mapping };
  const origin = { requestedBy: input.requestedBy, request: input.request };
  return await keepRun(deps, { ...run, ...origin }, answer, input.includeMaps);
}
