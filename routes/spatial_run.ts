/**
 * The steps every spatial route shares: load a task's individuals once into typed columns, audit
 * them over the worker pool, and draw the audit's maps in a worker.
 */
import type { Context } from "hono";
import type { AppEnv } from "./env.ts";
import { IndividualsBuilder, type LoadNeeds } from "../core/spatial/load.ts";
import {
  explicitKeys,
  fieldsWithValues,
  type Mapping,
  MAPPING_KEYS,
  resolveMapping,
} from "../core/spatial/mapping.ts";
import { MAX_DRAWN, samplePoints } from "../core/spatial/maps/sample.ts";
import type { MapPoints } from "../core/spatial/maps/inputs.ts";
import type { Individuals, Regions, Ring } from "../core/spatial/types.ts";
import { spatialAudit, type SpatialAuditReply } from "../workers/spatial.ts";
import type { AuditMaps } from "../workers/maps.ts";
import type { CollectionRef } from "../store/store.ts";
import type { AuditRequest } from "./spatial_schemas.ts";

const BATCH = 5000;
/** How many documents, from the first in collection order, name the fields an omitted key may default to. */
export const MAPPING_SAMPLE = 200;

/**
 * The fields holding values in the first MAPPING_SAMPLE documents (collection order, so the same data
 * always resolves the same way): what both the dataset-columns route and the audit resolve defaults from.
 */
export async function mappingFields(c: Context<AppEnv>, ref: CollectionRef): Promise<string[]> {
  const docs: Record<string, unknown>[] = [];
  for await (const batch of c.var.deps.store.stream(ref, { batchSize: MAPPING_SAMPLE })) {
    docs.push(...batch);
    if (docs.length >= MAPPING_SAMPLE) break;
  }
  return fieldsWithValues(docs.slice(0, MAPPING_SAMPLE));
}

/**
 * Streams the mapped fields of the collection into Individuals (422 when the data cannot be audited).
 * Keys the request left out read defaultMapping's field; keys it gave must name a field every document has.
 */
export async function loadIndividuals(
  c: Context<AppEnv>,
  ref: CollectionRef,
  requested: Partial<Mapping>,
  needs: LoadNeeds,
): Promise<Individuals> {
  const complete = MAPPING_KEYS.every((k) => requested[k] !== undefined);
  const mapping = resolveMapping(requested, complete ? [] : await mappingFields(c, ref));
  const builder = new IndividualsBuilder(mapping, explicitKeys(requested));
  for await (
    const batch of c.var.deps.store.stream(ref, { projection: builder.fields(), batchSize: BATCH })
  ) {
    builder.add(batch);
  }
  return builder.finish(needs);
}

/** The request's polygons as rings, or null. */
export function polygonsOf(body: Pick<AuditRequest, "region">): Ring[] | null {
  return body.region?.map((r) => r.polygon as Ring) ?? null;
}

/** The keys the request mapped itself; loadIndividuals fills in the others from the collection. */
export function mappingOf(body: Pick<AuditRequest, "mapping">): Partial<Mapping> {
  return { ...body.mapping };
}

/** Audits `yPred` (default: the collection's) with the request's Monte Carlo settings. */
export function auditOf(
  c: Context<AppEnv>,
  ind: Individuals,
  body: AuditRequest,
  extra: { yPred?: Uint8Array; prepared?: { scope: Int32Array; regions: Regions } } = {},
): Promise<SpatialAuditReply> {
  return spatialAudit(c.var.deps.pool, {
    individuals: ind,
    equalOpp: body.equal_opp,
    polygons: polygonsOf(body),
    nWorlds: body.n_worlds,
    signifLevel: body.signif_level,
    seed: body.seed,
    rng: body.rng,
    ...extra,
  });
}

/** Dots for a map: the chosen individuals' coordinates and class (at most `maxDrawn` unless `full`). */
export function mapPoints(
  ind: Individuals,
  positions: Int32Array,
  cls: ArrayLike<number>,
  full: boolean,
  seed: number,
  maxDrawn: number = MAX_DRAWN,
): { points: MapPoints | null; drawnOf: number } {
  if (!ind.lat || !ind.lon) return { points: null, drawnOf: positions.length };
  const pick = samplePoints(positions.length, full ? positions.length : maxDrawn, seed);
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

/** The fair map and the distribution map of an audit, HTML and PNG, drawn in a worker. */
export function auditMaps(
  c: Context<AppEnv>,
  ind: Individuals,
  reply: SpatialAuditReply,
  yPred: Uint8Array,
  opts: { full: boolean; seed: number; title: string; cap?: number },
): Promise<AuditMaps> {
  const cls = Uint8Array.from(reply.scope, (i) => yPred[i]);
  const { points, drawnOf } = mapPoints(ind, reply.scope, cls, opts.full, opts.seed);
  const { world_max: _w, ...audit } = reply.audit;
  return c.var.deps.pool.run<AuditMaps>("maps.audit", {
    regions: reply.regions,
    audit,
    points,
    options: { title: opts.title, drawnOf, cap: opts.cap },
  });
}

/** The audit part of a reply: statistics without the raw world maxima, and the maps. */
export function auditPayload(reply: SpatialAuditReply, maps: AuditMaps) {
  const { world_max: _w, timing_ms: _t, kernel: _k, ...audit } = reply.audit;
  return {
    ...audit,
    regions_source: reply.regions.source,
    unassigned_individuals: reply.regions.unassigned,
    ...maps,
  };
}
