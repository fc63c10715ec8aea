/**
 * One display record per region, shared by the HTML and PNG renderers, and the projection that fits
 * `[lon, lat]` geometry into a pixel box.
 */
import type { AuditResult, Regions, Ring } from "../types.ts";
import { auditCap, divergingColor, globalRate, mapValue } from "./map_value.ts";
import type { MapPoints } from "./inputs.ts";

/** A region as a map shows it. */
export interface RegionFeature {
  idx: number;
  id: number;
  n: number;
  p: number;
  rate: number | null;
  s: number;
  pValue: number;
  signif: boolean;
  /** Audit map value in [−1, 1]. */
  value: number;
  color: string;
  /** Display polygon, `[lon, lat]` points; null when the region has no geometry. */
  ring: Ring | null;
}

/** Joins regions and audit lines by region index, so both renderers colour and label the same way. */
export function regionFeatures(regions: Regions, audit: AuditResult, cap?: number): RegionFeature[] {
  const c = cap ?? auditCap(audit);
  const g = globalRate(audit);
  return audit.stats.map((st) => {
    const value = mapValue(st.stat, st.rate, g, audit.signif_thresh, c);
    const ring = regions.polygons?.[st.idx] ?? null;
    return {
      idx: st.idx,
      id: regions.ids[st.idx] ?? st.region_id,
      n: st.n,
      p: st.p,
      rate: st.rate,
      s: st.stat,
      pValue: st.p_value,
      signif: st.is_signif,
      value,
      color: divergingColor(value),
      ring: drawable(ring) ? ring : null,
    };
  });
}

/** A ring worth drawing: three or more points, all finite (one NaN would spoil the whole SVG path). */
function drawable(ring: Ring | null): ring is Ring {
  return !!ring && ring.length >= 3 &&
    ring.every(([lon, lat]) => Number.isFinite(lon) && Number.isFinite(lat));
}

/** True when there is anything to put on a map: a region polygon or a dot. */
export function hasGeometry(features: RegionFeature[], points?: MapPoints | null): boolean {
  return features.some((f) => f.ring !== null) || (points?.lon.length ?? 0) > 0;
}

/** [minLon, minLat, maxLon, maxLat] of every polygon and dot (finite values only), or null when none. */
export function bbox(features: RegionFeature[], points?: MapPoints | null): number[] | null {
  const b = [Infinity, Infinity, -Infinity, -Infinity];
  const add = (lon: number, lat: number) => {
    if (!Number.isFinite(lon) || !Number.isFinite(lat)) return;
    if (lon < b[0]) b[0] = lon;
    if (lat < b[1]) b[1] = lat;
    if (lon > b[2]) b[2] = lon;
    if (lat > b[3]) b[3] = lat;
  };
  for (const f of features) for (const [lon, lat] of f.ring ?? []) add(lon, lat);
  if (points) { for (let i = 0; i < points.lon.length; i++) add(points.lon[i], points.lat[i]); }
  return b[0] <= b[2] ? b : null;
}

const MAX_LAT = 85.05112878;

/** Web-Mercator y (radians scale) of a latitude, clamped to the square world. */
function mercY(lat: number): number {
  const phi = (Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 180;
  return Math.log(Math.tan(Math.PI / 4 + phi / 2));
}

/**
 * Web-Mercator projection fitted to a bbox and centred in the pixel box [x, y, w, h], aspect kept, so
 * the PNG shows the same shapes as the Leaflet page. A degenerate bbox (one point) gets a small span.
 */
export function fitProjection(
  box: number[],
  x: number,
  y: number,
  w: number,
  h: number,
): (lon: number, lat: number) => [number, number] {
  const x0 = (box[0] * Math.PI) / 180;
  const x1 = (box[2] * Math.PI) / 180;
  const y0 = mercY(box[1]);
  const y1 = mercY(box[3]);
  const spanX = Math.max(x1 - x0, 1e-6);
  const spanY = Math.max(y1 - y0, 1e-6);
  const k = Math.min(w / spanX, h / spanY);
  const ox = x + w / 2 - ((x0 + x1) / 2) * k;
  const oy = y + h / 2 + ((y0 + y1) / 2) * k;
  return (lon, lat) => [ox + ((lon * Math.PI) / 180) * k, oy - mercY(lat) * k];
}
