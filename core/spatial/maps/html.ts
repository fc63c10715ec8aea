/**
 * The `*_html` maps of the audit and mitigation replies: self-contained pages a reviewer opens in a
 * browser (Leaflet inlined, base map when online, plain background offline).
 */
import type { AuditResult, Regions } from "../types.ts";
import { hasGeometry, type RegionFeature, regionFeatures } from "./features.ts";
import { DOT_COLORS, type MapOptions, type MapPoints } from "./inputs.ts";
import { legendHtml, mapPage, regionTable, tablePage } from "./html_parts.ts";
import { count, fmt } from "./text.ts";

/** OpenStreetMap's standard tiles; the browser fetches them, never our server. */
export const DEFAULT_TILE_URL = "https://tile.openstreetmap.org/{z}/{x}/{y}.png";

/** Rounds a coordinate to about 10 cm, to keep pages small. */
const r6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Context lines every map shows: scope, global rate, threshold, SBI, then the caller's notes. */
function auditNotes(audit: AuditResult, options: MapOptions): string[] {
  const rate = audit.n_individuals > 0 ? audit.n_positives / audit.n_individuals : null;
  return [
    `${count(audit.n_individuals)} individuals in scope, ${count(audit.n_positives)} positive ` +
    `(global rate ${fmt(rate, 3)}); ${count(audit.stats.length)} regions, ` +
    `${count(audit.total_signif_regions)} significant (s ≥ T = ` +
    `${fmt(audit.signif_thresh, 4)}); SBI ${fmt(audit.sbi_score, 4)}.`,
    ...(options.notes ?? []),
  ];
}

/** The page's data island: features with Leaflet `[lat, lon]` rings, and the dots. */
function pageData(features: RegionFeature[], points: MapPoints | null, options: MapOptions, fill: number) {
  const tileUrl = options.tileUrl === undefined ? DEFAULT_TILE_URL : options.tileUrl;
  return {
    tileUrl,
    fillOpacity: fill,
    dotColors: DOT_COLORS,
    features: features.filter((f) => f.ring).map((f) => ({
      id: f.id,
      n: f.n,
      rate: f.rate,
      s: f.s,
      p: f.pValue,
      signif: f.signif,
      color: f.color,
      latlngs: f.ring!.map(([lon, lat]) => [r6(lat), r6(lon)]),
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
function render(
  regions: Regions,
  audit: AuditResult,
  points: MapPoints | null,
  options: MapOptions,
  defaults: { title: string; notes: string[]; dotLabels: [string, string] | null; fill: number },
): string {
  const features = regionFeatures(regions, audit, options.cap);
  const title = options.title ?? defaults.title;
  const notes = [...auditNotes(audit, options), ...defaults.notes];
  if (!hasGeometry(features, points)) {
    const why = points === null
      ? "These regions have no geometry (they come from region_ids without coordinates), so there is no map to draw."
      : "No individual has coordinates and the regions have no geometry, so there is no map to draw.";
    return tablePage(
      title,
      notes,
      `${why} The regions and their statistics are listed below.`,
      regionTable(features),
    );
  }
  const missing = features.filter((f) => !f.ring).length;
  if (missing > 0) {
    notes.push(`${count(missing)} of ${count(features.length)} regions have no geometry and are not drawn.`);
  }
  const table = `<details style="margin:0 16px 16px"><summary>Regions (table)</summary>${
    regionTable(features)
  }</details>`;
  const legend = legendHtml(audit.signif_thresh, defaults.dotLabels);
  return mapPage(title, notes, legend, table, pageData(features, points, options, defaults.fill));
}

/** How many dots are drawn, and of how many when sampled, so a sampled map is never mistaken for all. */
function sampledNote(drawn: number, of: number | undefined, what: string): string[] {
  return of !== undefined && of > drawn
    ? [
      `${count(drawn)} of ${count(of)} ${what} drawn (a seeded sample; the statistics use every individual).`,
    ]
    : [`${count(drawn)} ${what} drawn.`];
}

/** The audit map page: regions coloured by map value, significant ones outlined, tooltips per region. */
export function fairMapHtml(regions: Regions, audit: AuditResult, options: MapOptions = {}): string {
  return render(regions, audit, null, options, {
    title: "Spatial fairness audit",
    notes: [],
    dotLabels: null,
    fill: 0.7,
  });
}

/** The distribution page: one dot per drawn individual (coloured by y_pred) over the audit's regions. */
export function distributionMapHtml(
  regions: Regions,
  audit: AuditResult,
  points: MapPoints,
  options: MapOptions = {},
): string {
  return render(regions, audit, points, options, {
    title: "Individuals in scope",
    notes: sampledNote(points.lon.length, options.drawnOf, "individuals"),
    dotLabels: ["y_pred = 0", "y_pred = 1"],
    fill: 0.35,
  });
}

/** The flips page: each flipped individual coloured by direction (cls = prediction after the flip). */
export function flipsMapHtml(
  regions: Regions,
  audit: AuditResult,
  flips: MapPoints,
  options: MapOptions = {},
): string {
  let up = 0;
  for (let i = 0; i < flips.cls.length; i++) if (flips.cls[i]) up++;
  return render(regions, audit, flips, options, {
    title: "Flipped predictions",
    notes: [
      ...sampledNote(flips.lon.length, options.drawnOf, "flips"),
      `Of these, ${count(up)} flipped from 0 to 1 and ${count(flips.cls.length - up)} from 1 to 0.`,
    ],
    dotLabels: ["flipped 1 → 0", "flipped 0 → 1"],
    fill: 0.35,
  });
}
