/**
 * The vector base map under every map: land, coastlines and country borders from Natural Earth
 * (`world-atlas`), and for the United States the state borders of the Census Bureau (`us-atlas`), both
 * TopoJSON from their npm packages, converted with `topojson-client`. Nothing is fetched at run time: the
 * packages are in the module graph, and the geometry a map needs (clipped to a box around the data,
 * rounded) is embedded in the page or drawn into the PNG.
 */
import * as topojson from "topojson-client";
import type { Ring } from "../types.ts";

/** A polyline of `[lon, lat]` points. */
export type Line = [number, number][];

/** The base map of one view: geometry inside `box` only. */
export interface Basemap {
  /** [minLon, minLat, maxLon, maxLat] the geometry was clipped to. */
  box: number[];
  /** Country polygons (each a list of rings: outer first, then holes), for the land fill. */
  land: Ring[][];
  /** Coastlines (the country outlines that border no other country). */
  coast: Line[];
  /** Borders between countries. */
  borders: Line[];
  /** Borders between U.S. states; empty outside the United States. */
  states: Line[];
  /** Natural Earth scale of the countries: "50m" for regional views, "110m" for continental ones. */
  scale: "50m" | "110m";
  /** Decimals the points are rounded to: 3 (about 100 m) with 50m, 2 with 110m. */
  digits: number;
  /** Credit line for the data. */
  attribution: string;
}

// deno-lint-ignore no-explicit-any
type Topology = any;

interface Source {
  countries: Ring[][];
  coast: Line[];
  borders: Line[];
}

const sources = new Map<string, Promise<Source>>();
let statesSource: Promise<Line[]> | null = null;

/** Polygons of a GeoJSON geometry as ring lists. */
function polygonsOf(geometry: { type: string; coordinates: unknown } | null): Ring[][] {
  if (!geometry) return [];
  if (geometry.type === "Polygon") return [geometry.coordinates as Ring[]];
  if (geometry.type === "MultiPolygon") return geometry.coordinates as Ring[][];
  return [];
}

/** A world-atlas topology as polygons and lines, converted once per isolate. */
function countries(scale: "50m" | "110m"): Promise<Source> {
  let p = sources.get(scale);
  if (!p) {
    p = (async () => {
      const topology: Topology = scale === "50m"
        ? (await import("world-atlas/countries-50m.json", { with: { type: "json" } })).default
        : (await import("world-atlas/countries-110m.json", { with: { type: "json" } })).default;
      const obj = topology.objects.countries;
      const fc = topojson.feature(topology, obj) as { features: { geometry: never }[] };
      return {
        countries: fc.features.flatMap((f) => polygonsOf(f.geometry)),
        coast: topojson.mesh(topology, obj, (a: unknown, b: unknown) => a === b).coordinates as Line[],
        borders: topojson.mesh(topology, obj, (a: unknown, b: unknown) => a !== b).coordinates as Line[],
      };
    })();
    p.catch(() => sources.delete(scale));
    sources.set(scale, p);
  }
  return p;
}

/** Borders between U.S. states (10m), converted once per isolate. */
function states(): Promise<Line[]> {
  statesSource ??= (async () => {
    const us: Topology = (await import("us-atlas/states-10m.json", { with: { type: "json" } })).default;
    return topojson.mesh(us, us.objects.states, (a: unknown, b: unknown) => a !== b).coordinates as Line[];
  })();
  statesSource.catch(() => (statesSource = null));
  return statesSource;
}

/** Where the U.S. state borders are (conterminous states, Alaska, Hawaii): only then are they loaded. */
const US_BOXES = [[-125, 24, -66, 50], [-180, 51, -129, 72], [-161, 18, -154, 23]];

const intersects = (a: number[], b: number[]) => a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3];

/** Bounding box of points. */
function boxOf(points: [number, number][]): number[] {
  const b = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of points) {
    if (x < b[0]) b[0] = x;
    if (y < b[1]) b[1] = y;
    if (x > b[2]) b[2] = x;
    if (y > b[3]) b[3] = y;
  }
  return b;
}

/** Sutherland–Hodgman: a ring clipped to an axis-aligned box (still closed, may run along the edges). */
export function clipRing(ring: Ring, box: number[]): Ring {
  let out: Ring = ring;
  const edges: [number, (p: [number, number]) => number][] = [
    [box[0], (p) => p[0] - box[0]],
    [box[2], (p) => box[2] - p[0]],
    [box[1], (p) => p[1] - box[1]],
    [box[3], (p) => box[3] - p[1]],
  ];
  for (const [, inside] of edges) {
    if (out.length === 0) break;
    const input = out;
    out = [];
    for (let i = 0; i < input.length; i++) {
      const cur = input[i], prev = input[(i + input.length - 1) % input.length];
      const dc = inside(cur), dp = inside(prev);
      if (dc >= 0) {
        if (dp < 0) out.push(cross(prev, cur, dp, dc));
        out.push(cur);
      } else if (dp >= 0) out.push(cross(prev, cur, dp, dc));
    }
  }
  return out;
}

/** The point where segment a→b crosses an edge, given the signed distances of a and b to it. */
function cross(a: [number, number], b: [number, number], da: number, db: number): [number, number] {
  const t = da / (da - db);
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
}

/** Liang–Barsky: the parts of a polyline inside a box, as separate polylines. */
export function clipLine(line: Line, box: number[]): Line[] {
  const parts: Line[] = [];
  let cur: Line = [];
  for (let i = 1; i < line.length; i++) {
    const [x0, y0] = line[i - 1], [x1, y1] = line[i];
    const dx = x1 - x0, dy = y1 - y0;
    let t0 = 0, t1 = 1, ok = true;
    for (const [p, q] of [[-dx, x0 - box[0]], [dx, box[2] - x0], [-dy, y0 - box[1]], [dy, box[3] - y0]]) {
      if (p === 0) {
        if (q < 0) ok = false;
      } else {
        const r = q / p;
        if (p < 0) t0 = Math.max(t0, r);
        else t1 = Math.min(t1, r);
      }
    }
    if (!ok || t0 > t1) {
      if (cur.length > 1) parts.push(cur);
      cur = [];
      continue;
    }
    const a: [number, number] = [x0 + dx * t0, y0 + dy * t0];
    const b: [number, number] = [x0 + dx * t1, y0 + dy * t1];
    if (cur.length === 0 || t0 > 0) {
      if (cur.length > 1) parts.push(cur);
      cur = [a];
    }
    cur.push(b);
    if (t1 < 1) {
      parts.push(cur);
      cur = [];
    }
  }
  if (cur.length > 1) parts.push(cur);
  return parts;
}

/** Points rounded to `digits` decimals, consecutive duplicates dropped. */
function rounded<T extends [number, number][]>(points: T, digits: number): T {
  const k = 10 ** digits;
  const out: [number, number][] = [];
  for (const [x, y] of points) {
    const p: [number, number] = [Math.round(x * k) / k, Math.round(y * k) / k];
    const last = out[out.length - 1];
    if (!last || last[0] !== p[0] || last[1] !== p[1]) out.push(p);
  }
  return out as T;
}

/** Lines of `lines` inside `box`, rounded; pieces of a single point dropped. */
function clipLines(lines: Line[], box: number[], digits: number): Line[] {
  return lines.filter((l) => intersects(boxOf(l), box))
    .flatMap((l) => clipLine(l, box))
    .map((l) => rounded(l, digits))
    .filter((l) => l.length > 1);
}

/**
 * The box a base map covers around data of bbox `b`: the data's extent and once more its largest span on
 * every side (at least 1°), so the PNG's letterboxed view and a page zoomed out a step still have land
 * around them; rounded outwards to 0.01° and kept inside the Web-Mercator world.
 */
export function basemapBox(b: number[]): number[] {
  const pad = Math.max(1, b[2] - b[0], b[3] - b[1]);
  // edges on a 0.01° grid, so points rounded to 2 or 3 decimals inside stay inside
  const down = (x: number) => Math.floor(x * 100 + 1e-6) / 100,
    up = (x: number) => Math.ceil(x * 100 - 1e-6) / 100;
  return [
    Math.max(-180, down(b[0] - pad)),
    Math.max(-85.06, down(b[1] - pad)),
    Math.min(180, up(b[2] + pad)),
    Math.min(85.06, up(b[3] + pad)),
  ];
}

/**
 * The base map around data of bbox `dataBox` ([minLon, minLat, maxLon, maxLat]), or null when there is
 * none to draw: no data box, or coordinates that are not longitudes and latitudes.
 */
export async function basemapFor(dataBox: number[] | null): Promise<Basemap | null> {
  if (!dataBox || !dataBox.every(Number.isFinite)) return null;
  if (dataBox[0] < -180 || dataBox[2] > 180 || dataBox[1] < -90 || dataBox[3] > 90) return null;
  const box = basemapBox(dataBox);
  const scale = Math.max(box[2] - box[0], box[3] - box[1]) <= 40 ? "50m" : "110m";
  const digits = scale === "50m" ? 3 : 2;
  const src = await countries(scale);
  const land: Ring[][] = [];
  for (const polygon of src.countries) {
    if (!intersects(boxOf(polygon[0]), box)) continue;
    const [outer, ...holes] = polygon.map((r) => rounded(clipRing(r, box), digits));
    if (outer.length >= 3) land.push([outer, ...holes.filter((r) => r.length >= 3)]);
  }
  const us = US_BOXES.some((b) => intersects(b, box));
  return {
    box,
    land,
    coast: clipLines(src.coast, box, digits),
    borders: clipLines(src.borders, box, digits),
    states: us ? clipLines(await states(), box, digits) : [],
    scale,
    digits,
    attribution: us ? "Base map: Natural Earth; U.S. states: U.S. Census Bureau" : "Base map: Natural Earth",
  };
}
