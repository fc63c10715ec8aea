/**
 * SVG documents of the maps, the input of the PNG renderer: regions in a Web-Mercator projection fitted
 * to the data, significant regions outlined, dots per class, and a legend panel. Text uses the one font
 * the renderer loads (FONT_FAMILY); every user string is escaped.
 */
import type { AuditResult, Regions } from "../types.ts";
import { bbox, fitProjection, type RegionFeature, regionFeatures } from "./features.ts";
import { DOT_COLORS, type MapOptions, type MapPoints } from "./inputs.ts";
import { DIVERGING_STOPS } from "./map_value.ts";
import { count, escapeXml, fmt } from "./text.ts";

/** Family name of the font the PNG renderer loads (Inter, from its npm package). */
export const FONT_FAMILY = "Inter";

/** Image size of every map. */
export const MAP_WIDTH = 800;
export const MAP_HEIGHT = 600;

const MAP_BOX = [10, 40, 620, 550] as const;
const PANEL_X = 645;

/** Rounds pixels to 0.1, enough for an 800-pixel image and half the text of full precision. */
const px = (v: number) => Math.round(v * 10) / 10;

/** A <text> element with escaped content. */
export function svgText(x: number, y: number, content: string, size = 12, extra = ""): string {
  return `<text x="${px(x)}" y="${px(y)}" font-size="${size}" ${extra}>${escapeXml(content)}</text>`;
}

/** Wraps a body in an SVG document with a white background and the renderer's font. */
export function svgDocument(width: number, height: number, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" font-family="${FONT_FAMILY}" fill="#222">` +
    `<rect width="${width}" height="${height}" fill="#ffffff"/>${body}</svg>`;
}

/** The vertical colour bar (+1 on top) with its marks, the outline key and the dot key. */
function legend(threshold: number, dotLabels: [string, string] | null): string {
  const [x, y, w, h] = [PANEL_X + 8, 80, 18, 260];
  const stops = DIVERGING_STOPS.map((c, i) =>
    `<stop offset="${px((1 - i / (DIVERGING_STOPS.length - 1)) * 100)}%" stop-color="${c}"/>`
  ).reverse().join("");
  const marks = [1, 0.2, 0, -0.2, -1].map((v) => {
    const ty = y + ((1 - v) / 2) * h;
    return `<line x1="${x + w}" x2="${x + w + 4}" y1="${px(ty)}" y2="${px(ty)}" stroke="#444"/>` +
      svgText(x + w + 7, ty + 4, v > 0 ? `+${v}` : v < 0 ? `−${-v}` : "0", 11);
  }).join("");
  let out = `<defs><linearGradient id="ramp" x1="0" y1="0" x2="0" y2="1">${stops}</linearGradient></defs>` +
    svgText(PANEL_X, y - 22, "rate above global", 11) +
    `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="url(#ramp)" stroke="#888"/>` + marks +
    svgText(PANEL_X, y + h + 20, "rate below global", 11) +
    svgText(PANEL_X, y + h + 40, `|v| ≥ 0.2: s ≥ T = ${fmt(threshold, 4)}`, 10) +
    `<rect x="${PANEL_X}" y="${
      y + h + 54
    }" width="22" height="12" fill="none" stroke="#000" stroke-width="2.5"/>` +
    svgText(PANEL_X + 28, y + h + 65, "significant", 11);
  if (dotLabels) {
    dotLabels.forEach((label, k) => {
      const cy = y + h + 90 + k * 20;
      out += `<circle cx="${PANEL_X + 8}" cy="${cy}" r="5" fill="${DOT_COLORS[k]}"/>` +
        svgText(PANEL_X + 20, cy + 4, label, 11);
    });
  }
  return out;
}

/** Region polygons, significant ones last so their outline stays on top. */
function regionPaths(
  features: RegionFeature[],
  project: (lon: number, lat: number) => number[],
  fill: number,
) {
  const drawn = features.filter((f) => f.ring).sort((a, b) => Number(a.signif) - Number(b.signif));
  const outline = drawn.length > 400 ? 1.2 : 2.2; // thinner when regions are only a few pixels wide
  return drawn.map((f) => {
    const d = f.ring!.map(([lon, lat], i) => {
      const [x, y] = project(lon, lat);
      return `${i ? "L" : "M"}${px(x)} ${px(y)}`;
    }).join("") + "Z";
    const stroke = f.signif ? `stroke="#000" stroke-width="${outline}"` : `stroke="#666" stroke-width="0.5"`;
    return `<path d="${d}" fill="${f.color}" fill-opacity="${fill}" ${stroke} stroke-linejoin="round"/>`;
  }).join("");
}

/** Dots as one path per class (circles as two arcs): far faster to parse and draw than 10,000 elements. */
function dotPaths(points: MapPoints, project: (lon: number, lat: number) => number[]): string {
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

/** Regions without geometry as a grid of coloured cells, labelled with their ids when there is room. */
function swatchGrid(features: RegionFeature[]): string {
  const [x0, y0, w, h] = [MAP_BOX[0], MAP_BOX[1] + 30, MAP_BOX[2], MAP_BOX[3] - 30];
  const cols = Math.max(1, Math.ceil(Math.sqrt((features.length * w) / h)));
  const cell = Math.min(w / cols, h / Math.max(1, Math.ceil(features.length / cols)));
  const cells = features.map((f, i) => {
    const [x, y] = [x0 + (i % cols) * cell, y0 + Math.floor(i / cols) * cell];
    const stroke = f.signif ? `stroke="#000" stroke-width="2"` : `stroke="#fff" stroke-width="0.5"`;
    const label = cell >= 28
      ? svgText(
        x + cell / 2,
        y + cell / 2 + 4,
        String(f.id),
        10,
        `text-anchor="middle" fill="${Math.abs(f.value) > 0.6 ? "#fff" : "#222"}"`,
      )
      : "";
    return `<rect x="${px(x)}" y="${px(y)}" width="${px(cell)}" height="${
      px(cell)
    }" fill="${f.color}" ${stroke}/>` +
      label;
  }).join("");
  return svgText(
    MAP_BOX[0],
    MAP_BOX[1] + 16,
    "No geometry (regions from region_ids): one cell per region.",
    12,
  ) +
    cells;
}

/** The whole map image: title, map (or swatch grid when nothing has coordinates) and legend. */
function mapSvg(
  features: RegionFeature[],
  audit: AuditResult,
  points: MapPoints | null,
  title: string,
  dotLabels: [string, string] | null,
  subtitle = "",
): string {
  const box = bbox(features, points);
  const [x, y, w, h] = MAP_BOX;
  let body = svgText(16, 26, title, 16, `font-weight="bold"`) +
    svgText(x + w, 26, subtitle, 11, `text-anchor="end" fill="#555"`);
  if (box) {
    const project = fitProjection(box, x + 8, y + 8, w - 16, h - 16);
    body += `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="#e8edf1"/>` +
      regionPaths(features, project, points ? 0.45 : 1) + (points ? dotPaths(points, project) : "");
  } else body += swatchGrid(features);
  return svgDocument(MAP_WIDTH, MAP_HEIGHT, body + legend(audit.signif_thresh, dotLabels));
}

/** SVG of the audit map (the source of fairMapPng), exported for callers that want vector output. */
export function fairMapSvg(regions: Regions, audit: AuditResult, options: MapOptions = {}): string {
  const features = regionFeatures(regions, audit, options.cap);
  return mapSvg(features, audit, null, options.title ?? "Spatial fairness audit", null);
}

/** SVG of a dot map over the regions: the distribution map (kind "distribution") or the flips map. */
export function pointsMapSvg(
  kind: "distribution" | "flips",
  regions: Regions,
  audit: AuditResult,
  points: MapPoints,
  options: MapOptions = {},
): string {
  const features = regionFeatures(regions, audit, options.cap);
  const flips = kind === "flips";
  const title = options.title ?? (flips ? "Flipped predictions" : "Individuals in scope");
  const labels: [string, string] = flips ? ["flipped 1 → 0", "flipped 0 → 1"] : ["y_pred = 0", "y_pred = 1"];
  const n = points.lon.length;
  const of = options.drawnOf !== undefined && options.drawnOf > n ? ` of ${count(options.drawnOf)}` : "";
  return mapSvg(
    features,
    audit,
    points,
    title,
    labels,
    `${count(n)}${of} ${flips ? "flips" : "individuals"} drawn`,
  );
}
