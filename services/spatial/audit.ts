/**
 * The steps every spatial route shares: load a task's individuals once into typed columns, audit
 * them over the worker pool, and draw the audit's maps in a worker.
 */
import type { Context } from "hono";
import type { AppEnv } from "../../routes/http/env.ts";
import { IndividualsBuilder, type LoadNeeds } from "../../core/spatial/load.ts";
import {
  explicitKeys,
  type Mapping,
  MAPPING_KEYS,
  MAPPING_SAMPLE,
  resolveMapping,
} from "../../core/spatial/mapping.ts";
import { profileFields } from "../../core/ingest/field_profile.ts";
import { MAX_DRAWN, samplePoints } from "../../core/spatial/maps/sample.ts";
import type { MapPoints } from "../../core/spatial/maps/inputs.ts";
import type { Individuals, Regions, Ring } from "../../core/spatial/types.ts";
import { spatialAudit, type SpatialAuditReply } from "../../workers/spatial.ts";
import type { AuditMaps } from "../../workers/maps.ts";
import type { CollectionRef, Doc } from "../../store/store.ts";
import type { AuditRequest } from "../../routes/spatial/schemas.ts";

const BATCH = 5000;

/** The first MAPPING_SAMPLE documents in collection order: what dataset-columns profiles. */
export async function firstDocuments(c: Context<AppEnv>, ref: CollectionRef): Promise<Doc[]> {
  const docs: Doc[] = [];
  for await (const batch of c.var.deps.store.stream(ref, { batchSize: MAPPING_SAMPLE })) {
    docs.push(...batch);
    if (docs.length >= MAPPING_SAMPLE) break;
  }
  return docs.slice(0, MAPPING_SAMPLE);
}

/**
 * Streams the collection once into Individuals (422 when the data cannot be audited), with the mapping
 * it read. Keys the request gave must name a field every document has; a key it left out reads the field
 * defaultMapping finds in the first MAPPING_SAMPLE documents, as dataset-columns shows it (those few are
 * read first, so the one pass over the collection carries only the mapped fields).
 */
export async function loadIndividuals(
  c: Context<AppEnv>,
  ref: CollectionRef,
  requested: Partial<Mapping> | undefined,
  needs: LoadNeeds,
): Promise<{ ind: Individuals; mapping: Mapping }> {
  const explicit = explicitKeys(requested);
  const head = explicit.length === MAPPING_KEYS.length ? [] : await firstDocuments(c, ref);
  const mapping = resolveMapping(requested, profileFields(head));
  const builder = new IndividualsBuilder(mapping, explicit);
  for await (
    const batch of c.var.deps.store.stream(ref, { projection: builder.fields(), batchSize: BATCH })
  ) {
    builder.add(batch);
  }
  return { ind: builder.finish(needs), mapping };
}

/** The request's polygons as rings, or null. */
export function polygonsOf(body: Pick<AuditRequest, "region">): Ring[] | null {
  return body.region?.map((r) => r.polygon as Ring) ?? null;
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
  const { world_max: _w, timing_ms: _t, ...audit } = reply.audit;
  return {
    ...audit,
    regions_source: reply.regions.source,
    unassigned_individuals: reply.regions.unassigned,
    ...maps,
  };
}
