/**
 * One display record per region, shared by the HTML and PNG renderers, and the projection that fits
 * `[lon, lat]` geometry into a pixel box.
 */
import type { AuditResult, Regions, Ring } from "../types.ts";
import { auditCap, diffColor, overallRate, rateDiffPp } from "./map_value.ts";
import type { MapOptions, MapPoints } from "./inputs.ts";

/** A region as a map shows it. */
export interface RegionFeature {
  idx: number;
  id: number;
  /** The region's name where the caller maps one. */
  name: string | null;
  n: number;
  p: number;
  rate: number | null;
  /** Region rate − overall rate, in percentage points; null without a rate. */
  diff: number | null;
  s: number;
  pValue: number;
  signif: boolean;
  color: string;
  /** Display polygon, `[lon, lat]` points; null when the region has no geometry. */
  ring: Ring | null;
  /** Where its label goes (inside the polygon), `[lon, lat]`; null without geometry. */
  labelAt: [number, number] | null;
}

/** The colour scale of a map: the overall rate, the cap (points) and whether rates are TPRs. */
export interface MapScale {
  overall: number;
  cap: number;
  equalOpp: boolean;
}

/** The scale a map of `audit` is drawn on, with the caller's cap (the before-audit's) when given. */
export function mapScale(audit: AuditResult, options: Pick<MapOptions, "cap" | "equalOpp">): MapScale {
  const cap = options.cap !== undefined && options.cap > 0 ? options.cap : auditCap(audit);
  return { overall: overallRate(audit), cap, equalOpp: options.equalOpp ?? false };
}

/**
 * The most regions a map draws as the hulls of their members: thousands of overlapping regions make an
 * unreadable map and cost seconds to outline and render, while the audit's stats still list them all.
 */
export const MAX_MAP_REGIONS = 500;

/**
 * Which regions of `audit` a map draws (ascending idx): all of them up to `max`, else the significant ones
 * first (smallest p-value first), then those farthest from the overall rate; a region with no one in
 * scope last.
 */
export function mapRegions(audit: AuditResult, max = MAX_MAP_REGIONS): number[] {
  if (audit.stats.length <= max) return audit.stats.map((st) => st.idx);
  const overall = overallRate(audit);
  const far = (rate: number | null) => (rate === null ? -1 : Math.abs(rate - overall));
  const order = audit.stats.slice().sort((a, b) =>
    Number(b.is_signif) - Number(a.is_signif) ||
    (a.is_signif ? a.p_value - b.p_value : 0) ||
    far(b.rate) - far(a.rate) ||
    a.idx - b.idx
  );
  return order.slice(0, max).map((st) => st.idx).sort((a, b) => a - b);
}

/** Joins regions and audit lines by region index, so both renderers colour and label the same way. */
export function regionFeatures(
  regions: Regions,
  audit: AuditResult,
  scale: MapScale,
  names?: Record<string, string>,
): RegionFeature[] {
  return audit.stats.map((st) => {
    const diff = rateDiffPp(st.rate, scale.overall);
    const ring = regions.polygons?.[st.idx] ?? null;
    const id = regions.ids[st.idx] ?? st.region_id;
    const ok = drawable(ring);
    return {
      idx: st.idx,
      id,
      name: names?.[String(id)] ?? null,
      n: st.n,
      p: st.p,
      rate: st.rate,
      diff,
      s: st.stat,
      pValue: st.p_value,
      signif: st.is_signif,
      color: diffColor(diff, scale.cap),
      ring: ok ? ring : null,
      labelAt: ok ? labelPoint(ring) : null,
    };
  });
}

/**
 * A point inside a ring for its label: the centroid when it lies inside (always, for the convex hulls
 * of clusters), else the middle of the widest inside stretch of one of three horizontal lines.
 */
export function labelPoint(ring: Ring): [number, number] {
  let a = 0, cx = 0, cy = 0;
  for (let i = 0; i < ring.length; i++) {
    const [x0, y0] = ring[i], [x1, y1] = ring[(i + 1) % ring.length];
    const c = x0 * y1 - x1 * y0;
    a += c, cx += (x0 + x1) * c, cy += (y0 + y1) * c;
  }
  if (Math.abs(a) > 1e-18) {
    const c: [number, number] = [cx / (3 * a), cy / (3 * a)];
    if (insideRing(c[0], c[1], ring)) return c;
  }
  let ymin = Infinity, ymax = -Infinity;
  for (const [, y] of ring) ymin = Math.min(ymin, y), ymax = Math.max(ymax, y);
  let best: [number, number] = ring[0], width = -1;
  for (const f of [0.5, 0.3, 0.7]) {
    const y = ymin + (ymax - ymin) * f;
    const xs: number[] = [];
    for (let i = 0; i < ring.length; i++) {
      const [x0, y0] = ring[i], [x1, y1] = ring[(i + 1) % ring.length];
      if ((y0 > y) !== (y1 > y)) xs.push(x0 + ((y - y0) / (y1 - y0)) * (x1 - x0));
    }
    xs.sort((p, q) => p - q);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      if (xs[k + 1] - xs[k] > width) (width = xs[k + 1] - xs[k], best = [(xs[k] + xs[k + 1]) / 2, y]);
    }
  }
  return best;
}

/** Even-odd point in ring. */
function insideRing(x: number, y: number, ring: Ring): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i], [xj, yj] = ring[j];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** "14" or "14 · Attica": a region's label. */
export function regionLabel(f: Pick<RegionFeature, "id" | "name">): string {
  return f.name ? `${f.id} · ${f.name}` : String(f.id);
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
export function bbox(features: Pick<RegionFeature, "ring">[], points?: MapPoints | null): number[] | null {
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

/** The bbox of what a map of `audit` draws (its regions' polygons and the dots), or null when none. */
export function dataBox(regions: Regions, audit: AuditResult, points?: MapPoints | null): number[] | null {
  const rings = audit.stats.map((st) => regions.polygons?.[st.idx] ?? null).filter(drawable);
  return bbox(rings.map((ring) => ({ ring })), points);
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
