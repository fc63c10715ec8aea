/**
 * SVG documents of the maps, the input of the PNG renderer: the vector base map, regions coloured by
 * their rate difference in a Web-Mercator projection fitted to the data, significant regions outlined,
 * region ids where they fit, dots per class, and a legend panel in the scale's units. Text uses the fonts
 * the renderer loads (FONT_FAMILY); every user string is escaped.
 */
import type { AuditResult, Regions } from "../types.ts";
import { type Basemap, clipLine, clipRing, type Line } from "./basemap.ts";
import {
  bbox,
  fitProjection,
  type MapScale,
  mapScale,
  type RegionFeature,
  regionFeatures,
  regionLabel,
} from "./features.ts";
import { DOT_COLORS, type MapOptions, type MapPoints } from "./inputs.ts";
import { DIVERGING_STOPS, NO_DATA_COLOR, ppLabel, rateWords, scaleMarks } from "./map_value.ts";
import { count, escapeXml, fmt } from "./text.ts";

/** Family name of the font the PNG renderer loads (Inter, from its npm package). */
export const FONT_FAMILY = "Inter";

/** Image size of every map. */
export const MAP_WIDTH = 800;
export const MAP_HEIGHT = 600;

const MAP_BOX = [10, 40, 600, 550] as const;
const PANEL_X = 624;

/** Colours of the base map, shared with the HTML page. */
export const BASEMAP_STYLE = {
  sea: "#dbe5ee",
  land: "#f6f4ef",
  coast: "#8ea4b8",
  borders: "#8a8a8a",
  states: "#a9a9a9",
  /** Background of a map without a base map (coordinates that are not longitudes and latitudes). */
  plain: "#eef0f2",
} as const;

/** Region strokes: significant regions get a dark outline over a white casing. */
export const OUTLINE = { color: "#000000", casing: "#ffffff", other: "#5f5f5f" } as const;

/** Rounds pixels to 0.1, enough for an 800-pixel image and half the text of full precision. */
const px = (v: number) => Math.round(v * 10) / 10;

/** A <text> element with escaped content. */
export function svgText(x: number, y: number, content: string, size = 12, extra = ""): string {
  return `<text x="${px(x)}" y="${px(y)}" font-size="${size}" ${extra}>${escapeXml(content)}</text>`;
}

/** Bold text (the renderer loads Inter Bold). */
export const BOLD = `font-weight="700"`;

/** Wraps a body in an SVG document with a white background and the renderer's font. */
export function svgDocument(width: number, height: number, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" font-family="${FONT_FAMILY}" fill="#222">` +
    `<rect width="${width}" height="${height}" fill="#ffffff"/>${body}</svg>`;
}

type Project = (lon: number, lat: number) => number[];

/** A path's `d` for points (closed when `close`). */
function pathD(points: [number, number][], project: Project, close: boolean): string {
  return pixelD(points.map(([lon, lat]) => project(lon, lat) as [number, number]), close);
}

/** A path's `d` for pixel points. */
function pixelD(points: [number, number][], close: boolean): string {
  return points.map(([x, y], i) => `${i ? "L" : "M"}${px(x)} ${px(y)}`).join("") + (close ? "Z" : "");
}

/**
 * Land, coastlines, country and state borders, under the regions, clipped in pixels to the map's frame
 * (a geometric clip: an SVG clip-path costs resvg several times the whole map's rendering).
 */
function basemapSvg(base: Basemap, project: Project): string {
  const [x, y, w, h] = MAP_BOX;
  const frame = [x, y, x + w, y + h];
  const toPx = (points: [number, number][]) =>
    points.map(([lon, lat]) => project(lon, lat) as [number, number]);
  const lines = (ls: Line[], color: string, width: number, dash = "") => {
    const d = ls.flatMap((l) => clipLine(toPx(l), frame)).map((l) => pixelD(l, false)).join("");
    return d
      ? `<path d="${d}" fill="none" stroke="${color}" stroke-width="${width}" stroke-linejoin="round"` +
        `${dash ? ` stroke-dasharray="${dash}"` : ""}/>`
      : "";
  };
  const land = base.land.map((rings) => {
    const d = rings.map((r) => clipRing(toPx(r), frame)).filter((r) => r.length >= 3)
      .map((r) => pixelD(r, true)).join("");
    return d ? `<path d="${d}" fill-rule="evenodd"/>` : "";
  }).join("");
  return `<g fill="${BASEMAP_STYLE.land}">${land}</g>` +
    lines(base.states, BASEMAP_STYLE.states, 0.6, "3 2") +
    lines(base.coast, BASEMAP_STYLE.coast, 0.8) +
    lines(base.borders, BASEMAP_STYLE.borders, 0.9, "4 2");
}

/** Region polygons, significant ones last so their outline stays on top. */
function regionPaths(features: RegionFeature[], project: Project, fill: number) {
  const drawn = features.filter((f) => f.ring).sort((a, b) => Number(a.signif) - Number(b.signif));
  const outline = drawn.length > 400 ? 1.4 : 2.4; // thinner when regions are only a few pixels wide
  return drawn.map((f) => {
    const d = pathD(f.ring!, project, true);
    if (!f.signif) {
      return `<path d="${d}" fill="${f.color}" fill-opacity="${fill}" stroke="${OUTLINE.other}" ` +
        `stroke-width="0.6" stroke-linejoin="round"/>`;
    }
    return `<path d="${d}" fill="${f.color}" fill-opacity="${fill}" stroke="${OUTLINE.casing}" ` +
      `stroke-width="${outline + (drawn.length > 400 ? 0.8 : 2)}" stroke-linejoin="round"/>` +
      `<path d="${d}" fill="none" stroke="${OUTLINE.color}" stroke-width="${outline}" stroke-linejoin="round"/>`;
  }).join("");
}

/** Approximate width of Inter text (average advance ≈ 0.58 em; bold a little wider). */
const textWidth = (s: string, size: number, bold = false) => s.length * size * (bold ? 0.62 : 0.58);

/** The most labels a map prints: beyond this many, ids stop being readable (tooltips in the HTML map have them all). */
export const MAX_LABELS = 120;

/**
 * Region ids at their label points, where the region is wide and tall enough for the text and the label
 * would not cover one already placed: significant regions first, then the larger ones, at most
 * MAX_LABELS (thousands of overlapping regions would print thousands of unreadable, and slow, labels).
 */
function regionLabels(features: RegionFeature[], project: Project): string {
  const drawn = features.filter((f) => f.ring && f.labelAt);
  const size = drawn.length > 150 ? 9 : 11;
  const candidates = drawn.map((f) => {
    let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (const [lon, lat] of f.ring!) {
      const [x, y] = project(lon, lat);
      x0 = Math.min(x0, x), x1 = Math.max(x1, x), y0 = Math.min(y0, y), y1 = Math.max(y1, y);
    }
    return { f, w: x1 - x0, h: y1 - y0 };
  }).sort((a, b) => Number(b.f.signif) - Number(a.f.signif) || b.w * b.h - a.w * a.h);
  const placed: [number, number, number, number][] = [];
  let out = "";
  for (const { f, w, h } of candidates) {
    if (placed.length >= MAX_LABELS) break;
    const label = regionLabel(f);
    const text = textWidth(label, size, f.signif) + 4 <= w ? label : String(f.id);
    const width = textWidth(text, size, f.signif);
    if (width + 4 > w || size + 2 > h) continue;
    const [x, y] = project(f.labelAt![0], f.labelAt![1]);
    const box: [number, number, number, number] = [x - width / 2, y - size / 2, x + width / 2, y + size / 2];
    if (placed.some((p) => box[0] < p[2] && p[0] < box[2] && box[1] < p[3] && p[1] < box[3])) continue;
    placed.push(box);
    out += svgText(
      x,
      y + size * 0.36,
      text,
      size,
      `text-anchor="middle" fill="#111" stroke="#fff" stroke-width="2.6" stroke-linejoin="round" ` +
        `paint-order="stroke"${f.signif ? ` ${BOLD}` : ""}`,
    );
  }
  return out;
}

/** Dots as one path per class (circles as two arcs): far faster to parse and draw than 10,000 elements. */
function dotPaths(points: MapPoints, project: Project): string {
  const n = points.lon.length;
  const r = n > 3000 ? 1.6 : 2.5;
  const parts: string[][] = [[], []];
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(points.lon[i]) || !Number.isFinite(points.lat[i])) continue;
    const [x, y] = project(points.lon[i], points.lat[i]);
    parts[points.cls[i] ? 1 : 0].push(
      `M${px(x - r)} ${px(y)}a${r} ${r} 0 1 0 ${2 * r} 0a${r} ${r} 0 1 0 ${-2 * r} 0`,
    );
  }
  return parts.map((p, k) => p.length ? `<path d="${p.join("")}" fill="${DOT_COLORS[k]}"/>` : "")
    .join("");
}

/** Regions without geometry as a grid of coloured cells, labelled with id and difference when there is room. */
function swatchGrid(features: RegionFeature[]): string {
  const [x0, y0, w, h] = [MAP_BOX[0], MAP_BOX[1] + 30, MAP_BOX[2], MAP_BOX[3] - 30];
  const cols = Math.max(1, Math.ceil(Math.sqrt((features.length * w) / h)));
  const cell = Math.min(w / cols, h / Math.max(1, Math.ceil(features.length / cols)));
  const halo = `fill="#111" stroke="#fff" stroke-width="2.6" stroke-linejoin="round" paint-order="stroke"`;
  const cells = features.map((f, i) => {
    const [x, y] = [x0 + (i % cols) * cell, y0 + Math.floor(i / cols) * cell];
    const inset = f.signif ? 2 : 0;
    const rect =
      `<rect x="${px(x + 1 + inset)}" y="${px(y + 1 + inset)}" width="${px(cell - 2 - 2 * inset)}" ` +
      `height="${px(cell - 2 - 2 * inset)}" fill="${f.color}" ` +
      (f.signif
        ? `stroke="${OUTLINE.color}" stroke-width="3"/>`
        : `stroke="${OUTLINE.other}" stroke-width="0.6"/>`);
    let label = "";
    if (cell >= 28) {
      label = svgText(
        x + cell / 2,
        y + cell / 2 + (cell >= 56 ? -2 : 4),
        String(f.id),
        11,
        `text-anchor="middle" ${halo}${f.signif ? ` ${BOLD}` : ""}`,
      );
      if (cell >= 56 && f.diff !== null) {
        label += svgText(x + cell / 2, y + cell / 2 + 12, ppLabel(f.diff), 9, `text-anchor="middle" ${halo}`);
      }
    }
    return rect + label;
  }).join("");
  return svgText(
    MAP_BOX[0],
    MAP_BOX[1] + 16,
    "No geometry (regions from region_ids): one cell per region.",
    12,
  ) +
    cells;
}

/** What the legend shows besides the scale. */
interface LegendExtras {
  dotLabels: [string, string] | null;
  /** Opacity the regions are filled with, so the ramp matches them. */
  fill: number;
  /** Whether some region has no rate (grey). */
  noData: boolean;
  /** Whether some region's difference lies beyond the cap (drawn at the end colour): "≥" on the ends. */
  clamped: boolean;
}

/** The legend panel: what the fill means, the vertical ramp in points, the outline key, dots, counts. */
function legend(audit: AuditResult, scale: MapScale, extras: LegendExtras): string {
  const words = rateWords(scale.equalOpp);
  const x = PANEL_X;
  let out = svgText(x, 58, scale.equalOpp ? "TPR difference" : "Rate difference", 13, BOLD) +
    svgText(x, 74, `region ${words.short} − overall ${words.short}`, 10.5) +
    svgText(x, 88, "(percentage points)", 10.5) +
    svgText(x, 104, `overall ${words.short}: ${fmt(scale.overall * 100, 1)} %`, 10.5, `fill="#444"`);
  const [rx, ry, rw, rh] = [x + 4, 132, 18, 210];
  const stops = DIVERGING_STOPS.map((c, i) =>
    `<stop offset="${px((1 - i / (DIVERGING_STOPS.length - 1)) * 100)}%" stop-color="${c}"/>`
  ).reverse().join("");
  out += svgText(x, ry - 10, "above overall", 10, `fill="#b2182b"`) +
    `<defs><linearGradient id="ramp" x1="0" y1="0" x2="0" y2="1">${stops}</linearGradient></defs>` +
    `<rect x="${rx}" y="${ry}" width="${rw}" height="${rh}" fill="url(#ramp)" fill-opacity="${extras.fill}" ` +
    `stroke="#888"/>`;
  scaleMarks(scale.cap).forEach((v, k) => {
    const ty = ry + (k / 4) * rh;
    const end = extras.clamped && (k === 0 || k === 4) ? (k === 0 ? "≥ " : "≤ ") : "";
    out += `<line x1="${rx + rw}" x2="${rx + rw + 4}" y1="${px(ty)}" y2="${px(ty)}" stroke="#444"/>` +
      svgText(rx + rw + 8, ty + 4, end + ppLabel(v, 2), 11);
  });
  out += svgText(x, ry + rh + 18, "below overall", 10, `fill="#2166ac"`) +
    svgText(x, ry + rh + 32, "square-root scale", 9.5, `fill="#666"`);
  let y = ry + rh + 54;
  out += `<rect x="${x + 2}" y="${y - 10}" width="22" height="13" fill="#fff" stroke="${OUTLINE.color}" ` +
    `stroke-width="2.4"/>` + svgText(x + 30, y, "significant", 11, BOLD) +
    svgText(x + 30, y + 14, `s ≥ T = ${fmt(audit.signif_thresh, 4)}`, 10, `fill="#444"`);
  y += 34;
  if (extras.noData) {
    out += `<rect x="${x + 2}" y="${y - 10}" width="22" height="13" fill="${NO_DATA_COLOR}" stroke="#888"/>` +
      svgText(x + 30, y, "no one in scope", 10.5);
    y += 22;
  }
  if (extras.dotLabels) {
    extras.dotLabels.forEach((label, k) => {
      out += `<circle cx="${x + 12}" cy="${y - 4}" r="5" fill="${DOT_COLORS[k]}"/>` +
        svgText(x + 30, y, label, 11);
      y += 18;
    });
  }
  const signif = audit.stats.filter((s) => s.is_signif).length;
  return out +
    svgText(x, 566, `${count(audit.stats.length)} regions, ${count(signif)} significant`, 10, `fill="#444"`) +
    svgText(
      x,
      580,
      `${count(audit.n_individuals)} individuals · SBI ${fmt(audit.sbi_score, 4)}`,
      10,
      `fill="#444"`,
    );
}

/** What a map image draws. */
export interface MapDrawing {
  features: RegionFeature[];
  audit: AuditResult;
  scale: MapScale;
  points: MapPoints | null;
  basemap: Basemap | null;
  title: string;
  subtitle?: string;
  dotLabels: [string, string] | null;
}

/** Pixel position in a map image of a `[lon, lat]` point, for data of bbox `box` (Web Mercator, fitted). */
export function mapProjection(box: number[]): Project {
  const [x, y, w, h] = MAP_BOX;
  return fitProjection(box, x + 12, y + 12, w - 24, h - 24);
}

/** The whole map image: title, base map, regions (or a swatch grid when nothing has coordinates), labels, legend. */
export function mapSvg(d: MapDrawing): string {
  const box = bbox(d.features, d.points);
  const [x, y, w, h] = MAP_BOX;
  const fill = d.points ? 0.5 : 1;
  let body = svgText(16, 26, d.title, 16, BOLD) +
    svgText(x + w, 26, d.subtitle ?? "", 11, `text-anchor="end" fill="#555"`);
  if (box) {
    const project = mapProjection(box);
    body += `<rect x="${x}" y="${y}" width="${w}" height="${h}" ` +
      `fill="${d.basemap ? BASEMAP_STYLE.sea : BASEMAP_STYLE.plain}"/>` +
      (d.basemap ? basemapSvg(d.basemap, project) : "") +
      regionPaths(d.features, project, fill) + (d.points ? dotPaths(d.points, project) : "") +
      regionLabels(d.features, project) +
      `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="#b0b0b0"/>` +
      (d.basemap ? svgText(x + 4, y + h - 5, d.basemap.attribution, 9, `fill="#555"`) : "");
  } else body += swatchGrid(d.features);
  const clamped = d.features.some((f) => f.diff !== null && Math.abs(f.diff) > d.scale.cap + 1e-9);
  return svgDocument(
    MAP_WIDTH,
    MAP_HEIGHT,
    body + legend(d.audit, d.scale, {
      dotLabels: d.dotLabels,
      fill,
      noData: d.features.some((f) => f.diff === null),
      clamped,
    }),
  );
}

/** The features and scale of a map of `audit` under `options`. */
export function mapParts(regions: Regions, audit: AuditResult, options: MapOptions) {
  const scale = mapScale(audit, options);
  return { scale, features: regionFeatures(regions, audit, scale, options.regionNames) };
}

/** SVG of the audit map (the source of fairMapPng), given its base map (basemapFor of the data's bbox). */
export function fairMapSvg(
  regions: Regions,
  audit: AuditResult,
  options: MapOptions,
  basemap: Basemap | null,
): string {
  const { scale, features } = mapParts(regions, audit, options);
  return mapSvg({
    features,
    audit,
    scale,
    points: null,
    basemap,
    title: options.title ?? "Spatial fairness audit",
    subtitle: options.capped
      ? `${count(features.length - options.capped)} of ${count(features.length)} regions drawn`
      : undefined,
    dotLabels: null,
  });
}

/** Labels of the dot classes of the distribution map and the flips map. */
export const DOT_LABELS = {
  distribution: ["y_pred = 0", "y_pred = 1"] as [string, string],
  flips: ["flipped 1 → 0", "flipped 0 → 1"] as [string, string],
};

/** SVG of a dot map over the regions: the distribution map (kind "distribution") or the flips map. */
export function pointsMapSvg(
  kind: "distribution" | "flips",
  regions: Regions,
  audit: AuditResult,
  points: MapPoints,
  options: MapOptions,
  basemap: Basemap | null,
): string {
  const { scale, features } = mapParts(regions, audit, options);
  const flips = kind === "flips";
  const n = points.lon.length;
  const of = options.drawnOf !== undefined && options.drawnOf > n ? ` of ${count(options.drawnOf)}` : "";
  return mapSvg({
    features,
    audit,
    scale,
    points,
    basemap,
    title: options.title ?? (flips ? "Flipped predictions" : "Individuals in scope"),
    subtitle: `${count(n)}${of} ${flips ? "flips" : "individuals"}` +
      (options.capped
        ? `, ${count(features.length - options.capped)} of ${count(features.length)} regions`
        : "") +
      " drawn",
    dotLabels: DOT_LABELS[kind],
  });
}
