/**
 * An audit's maps: the dots drawn for a map (a sample of the individuals unless `full`), the payload a map
 * task draws from an audit reply, and the fair and distribution maps drawn by two workers at once.
 */
import { MAX_DRAWN, samplePoints } from "../../core/spatial/maps/sample.ts";
import { nextTurn } from "../../core/turns.ts";
import type { MapPoints } from "../../core/spatial/maps/inputs.ts";
import type { Individuals } from "../../core/spatial/types.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import type { AuditMaps, AuditMapsPayload } from "../../workers/tasks/maps.ts";
import type { SpatialAuditReply } from "./on_pool.ts";

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
  const fromLon = ind.lon, fromLat = ind.lat;
  for (let i = 0; i < pick.length; i++) {
    const j = pick[i], at = positions[j];
    lon[i] = fromLon[at];
    lat[i] = fromLat[at];
    k[i] = cls[j];
  }
  return { points: { lon, lat, cls: k }, drawnOf: positions.length };
}

/** How a map is drawn: every dot or a sample (by `seed`), its title, and the colour scale's cap. */
export interface MapSettings {
  full: boolean;
  /** Regions the maps leave out (withHulls). */
  capped?: number;
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
  const cls = new Uint8Array(positions.length); // a loop: Uint8Array.from with a function is ~10× slower
  for (let j = 0; j < positions.length; j++) cls[j] = yPred[positions[j]];
  const { points, drawnOf } = mapPoints(ind, positions, cls, opts.full, opts.seed);
  const { world_max: _w, ...audit } = reply.audit;
  const { title, cap, equalOpp, tileUrl, capped } = opts;
  return {
    regions: reply.regions,
    audit,
    points,
    options: { title, drawnOf, cap, equalOpp, tileUrl, capped },
  };
}

/** The fair map and the distribution map of an audit, HTML and PNG, drawn by two workers at once. */
export async function auditMaps(
  pool: WorkerPool,
  ind: Individuals,
  reply: SpatialAuditReply,
  yPred: Uint8Array,
  opts: MapSettings,
): Promise<AuditMaps> {
  const payload = mapsPayload(ind, reply, reply.scope, yPred, opts);
  const { points: _, ...fair } = payload;
  const drawingFair = pool.run("maps.fair", fair);
  drawingFair.catch(() => {}); // its failure is taken below, not left unhandled during the turn
  // each post clones its regions' statistics and polygons: one a turn, so no turn holds both
  await nextTurn();
  const [f, d] = await Promise.all([drawingFair, pool.run("maps.distribution", payload)]);
  return { ...f, ...d };
}
