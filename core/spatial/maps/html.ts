/**
 * The `*_html` maps of the audit and mitigation replies: self-contained pages a reviewer opens in a
 * browser. Leaflet is inlined, and so is the base map: by default a vector base map (land, coasts,
 * country and U.S. state borders; basemap.ts) embedded in the page, so a page loads nothing from outside
 * and works offline; with a tile URL (config MAP_TILE_URL) the browser loads that tile layer instead.
 */
import type { AuditResult, Regions } from "../types.ts";
import { type Basemap, basemapFor } from "./basemap.ts";
import { dataBox, hasGeometry, type MapScale, type RegionFeature } from "./features.ts";
import { DOT_COLORS, type MapOptions, type MapPoints } from "./inputs.ts";
import { legendHtml, mapPage, regionTable, tablePage, tileSource } from "./html_parts.ts";
import { rateWords } from "./map_value.ts";
import { BASEMAP_STYLE, DOT_LABELS, mapParts, OUTLINE } from "./svg.ts";
import { cappedNote, count, fmt } from "./text.ts";

/** Rounds a coordinate to about 10 cm, to keep pages small. */
const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Context lines every map shows: scope, overall rate, threshold, SBI, then the caller's notes. */
function auditNotes(audit: AuditResult, scale: MapScale, options: MapOptions): string[] {
  const words = rateWords(scale.equalOpp);
  const scope = scale.equalOpp
    ? `${count(audit.n_individuals)} individuals in scope (y_true = 1), ${count(audit.n_positives)} ` +
      `predicted positive (overall true-positive rate ${fmt(scale.overall * 100, 1)} %)`
    : `${count(audit.n_individuals)} individuals in scope, ${count(audit.n_positives)} positive ` +
      `(overall positive rate ${fmt(scale.overall * 100, 1)} %)`;
  return [
    `${scope}; ${count(audit.stats.length)} regions, ${count(audit.total_signif_regions)} significant ` +
    `(s ≥ T = ${fmt(audit.signif_thresh, 4)}); SBI ${fmt(audit.sbi_score, 4)}.`,
    `Regions are coloured by their ${words.rate} minus the overall ${words.rate}, in percentage points.`,
    ...(options.notes ?? []),
  ];
}

/**
 * Points as the page's base map carries them: integers in units of 10^-digits degrees, the first point
 * absolute and each next one as the step from the one before ([x0, y0, dx1, dy1, ...]), about a third of
 * the text of `[lon, lat]` pairs; the page undoes it (leaflet_client.js).
 */
export function packPoints(points: [number, number][], digits: number): number[] {
  const k = 10 ** digits, out: number[] = [];
  let [px, py] = [0, 0];
  for (const [lon, lat] of points) {
    const [x, y] = [Math.round(lon * k), Math.round(lat * k)];
    out.push(x - px, y - py);
    [px, py] = [x, y];
  }
  return out;
}

/** The base map as the page draws it: packed points (packPoints) and their digits. */
function basemapData(base: Basemap | null) {
  if (!base) return null;
  const lines = (ls: [number, number][][]) => ls.map((l) => packPoints(l, base.digits));
  return {
    digits: base.digits,
    land: base.land.map((rings) => lines(rings)),
    coast: lines(base.coast),
    borders: lines(base.borders),
    states: lines(base.states),
    attribution: base.attribution,
  };
}

/** The page's data island: features with Leaflet `[lat, lon]` rings, the dots, the base map or tiles. */
function pageData(
  features: RegionFeature[],
  points: MapPoints | null,
  scale: MapScale,
  options: MapOptions,
  fill: number,
  basemap: Basemap | null,
) {
  const tiles = options.tileUrl ? tileSource(options.tileUrl) : null;
  const words = rateWords(scale.equalOpp);
  return {
    tiles: tiles ? { url: tiles.url, attribution: tiles.attribution } : null,
    basemap: tiles ? null : basemapData(basemap),
    style: { ...BASEMAP_STYLE, outline: OUTLINE.color, casing: OUTLINE.casing, other: OUTLINE.other },
    fillOpacity: fill,
    dotColors: DOT_COLORS,
    rateName: words.rate,
    overall: scale.overall,
    features: features.filter((f) => f.ring).map((f) => ({
      id: f.id,
      name: f.name,
      n: f.n,
      positives: f.p,
      rate: f.rate,
      diff: f.diff,
      s: f.s,
      p: f.pValue,
      signif: f.signif,
      color: f.color,
      latlngs: f.ring!.map(([lon, lat]) => [r6(lat), r6(lon)]),
      label: f.labelAt ? [r6(f.labelAt[1]), r6(f.labelAt[0])] : null,
    })),
    points: points
      ? {
        lat: Array.from(points.lat, r6),
        lon: Array.from(points.lon, r6),
        cls: Array.from(points.cls, (c) => (c ? 1 : 0)),
      }
      : null,
  };
}

/** Shared body of the three pages; without any geometry it falls back to the per-region table. */
async function render(
  regions: Regions,
  audit: AuditResult,
  points: MapPoints | null,
  options: MapOptions,
  defaults: { title: string; notes: string[]; dotLabels: [string, string] | null; fill: number },
): Promise<string> {
  const { scale, features } = mapParts(regions, audit, options);
  const title = options.title ?? defaults.title;
  const notes = [...auditNotes(audit, scale, options), ...defaults.notes];
  const table = regionTable(features, scale);
  if (!hasGeometry(features, points)) {
    const why = points === null
      ? "These regions have no geometry (they come from region_ids without coordinates), so there is no map to draw."
      : "No individual has coordinates and the regions have no geometry, so there is no map to draw.";
    return tablePage(title, notes, `${why} The regions and their statistics are listed below.`, table);
  }
  const capped = options.capped ?? 0;
  if (capped > 0) notes.push(cappedNote(capped, features.length));
  const missing = features.filter((f) => !f.ring).length - capped;
  if (missing > 0) {
    notes.push(`${count(missing)} of ${count(features.length)} regions have no geometry and are not drawn.`);
  }
  const basemap = options.tileUrl ? null : await basemapFor(dataBox(regions, audit, points));
  const legend = legendHtml(audit, scale, {
    dotLabels: defaults.dotLabels,
    fill: defaults.fill,
    noData: features.some((f) => f.diff === null),
  });
  const after = `<details style="margin:0 16px 16px"><summary>Regions (table)</summary>${table}</details>`;
  return mapPage(
    title,
    notes,
    legend,
    after,
    pageData(features, points, scale, options, defaults.fill, basemap),
    options.tileUrl ? tileSource(options.tileUrl) : null,
  );
}

/** How many dots are drawn, and of how many when sampled, so a sampled map is never mistaken for all. */
function sampledNote(drawn: number, of: number | undefined, what: string): string[] {
  return of !== undefined && of > drawn
    ? [
      `${count(drawn)} of ${count(of)} ${what} drawn (a seeded sample; the statistics use every individual).`,
    ]
    : [`${count(drawn)} ${what} drawn.`];
}

/** The audit map page: regions coloured by rate difference, significant ones outlined, labels and tooltips. */
export function fairMapHtml(regions: Regions, audit: AuditResult, options: MapOptions = {}): Promise<string> {
  return render(regions, audit, null, options, {
    title: "Spatial fairness audit",
    notes: [],
    dotLabels: null,
    fill: 0.9,
  });
}

/** The distribution page: one dot per drawn individual (coloured by y_pred) over the audit's regions. */
export function distributionMapHtml(
  regions: Regions,
  audit: AuditResult,
  points: MapPoints,
  options: MapOptions = {},
): Promise<string> {
  return render(regions, audit, points, options, {
    title: "Individuals in scope",
    notes: sampledNote(points.lon.length, options.drawnOf, "individuals"),
    dotLabels: DOT_LABELS.distribution,
    fill: 0.5,
  });
}

/** The flips page: each flipped individual coloured by direction (cls = prediction after the flip). */
export function flipsMapHtml(
  regions: Regions,
  audit: AuditResult,
  flips: MapPoints,
  options: MapOptions = {},
): Promise<string> {
  let up = 0;
  for (let i = 0; i < flips.cls.length; i++) if (flips.cls[i]) up++;
  return render(regions, audit, flips, options, {
    title: "Flipped predictions",
    notes: [
      ...sampledNote(flips.lon.length, options.drawnOf, "flips"),
      `Of these, ${count(up)} flipped from 0 to 1 and ${count(flips.cls.length - up)} from 1 to 0.`,
    ],
    dotLabels: DOT_LABELS.flips,
    fill: 0.5,
  });
}
