/**
 * The pieces of a self-contained map page: Leaflet's JS and CSS inlined from its npm package (no CDN at
 * run time), the legend, the per-region table, and the page shell with a strict Content-Security-Policy
 * (nothing from outside the page, except the tile server's images when a tile URL is configured).
 */
import leafletJs from "leaflet/dist/leaflet.js" with { type: "text" };
import leafletCss from "leaflet/dist/leaflet.css" with { type: "text" };
import clientJs from "./leaflet_client.js" with { type: "text" };
import type { AuditResult } from "../types.ts";
import { DIVERGING_STOPS, NO_DATA_COLOR, ppLabel, rateWords, scaleMarks } from "./map_value.ts";
import { escapeXml, fmt, jsonForScript, latin1Html } from "./text.ts";
import { type MapScale, type RegionFeature, regionLabel } from "./features.ts";
import { DOT_COLORS } from "./inputs.ts";

/** Page styles of ours, after Leaflet's. */
const STYLE = `
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;background:#fff}
header{padding:10px 16px}h1{font-size:18px;margin:0 0 4px}header p{margin:2px 0;color:#555}
#map{height:calc(100vh - 190px);min-height:360px;background:#eef0f2}
.legend{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start;padding:8px 16px;font-size:13px}
.ramp{width:300px;height:14px;border:1px solid #999}
.ramp-labels{display:flex;justify-content:space-between;width:302px;color:#333;font-size:12px}
.ramp-sides{display:flex;justify-content:space-between;width:302px;font-size:12px}
.swatch{display:inline-block;width:12px;height:12px;border:1px solid #999;vertical-align:middle;margin-right:4px}
.outline{display:inline-block;width:18px;height:10px;border:3px solid #000;vertical-align:middle;margin-right:4px}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;vertical-align:middle;margin-right:4px}
.notice{margin:16px;padding:12px 16px;background:#fff8e1;border:1px solid #f0d58c}
.region-label span{position:absolute;transform:translate(-50%,-50%);white-space:nowrap;font:12px/1 system-ui,sans-serif;
color:#111;text-shadow:0 0 2px #fff,0 0 2px #fff,0 0 3px #fff;pointer-events:none}
.region-label.signif span{font-weight:700}
table{border-collapse:collapse;margin:0 16px 16px}th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right}
th{background:#f4f4f4}`;

/** Leaflet's source with any `</script` sequence broken up, so it cannot end its own script element. */
function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, "<\\/$1");
}

/** A tile layer the page may load: the URL template, its origin for the CSP, and a credit line. */
export interface TileSource {
  url: string;
  /** CSP source of the tile images ("https://*.tile.example.org", or the scheme alone). */
  origin: string;
  attribution: string;
}

/**
 * The tile layer of a configured URL template (http or https, `{z}`, `{x}`, `{y}`, optionally `{s}` in
 * the host). The CSP allows that host only; a `{s}` as the host's first label becomes `*.`.
 */
export function tileSource(url: string): TileSource {
  const m = /^(https?):\/\/([^/?#]+)/i.exec(url);
  const scheme = (m?.[1] ?? "https").toLowerCase();
  const host = (m?.[2] ?? "").replace(/^\{s\}\./, "*.");
  const plain = /^(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/.test(host);
  const origin = plain ? `${scheme}://${host}` : `${scheme}:`;
  const name = host.replace(/^\*\./, "");
  const attribution = /openstreetmap\.org$/i.test(name.replace(/:\d+$/, ""))
    ? "© OpenStreetMap contributors"
    : `Tiles: ${name || url}`;
  return { url, origin, attribution };
}

/** What the legend shows besides the scale. */
export interface LegendOptions {
  /** Names of dot classes 0 and 1, or null for a map without dots. */
  dotLabels: [string, string] | null;
  /** The regions' fill opacity, so the ramp looks like them. */
  fill: number;
  /** Some region has no one in scope (grey). */
  noData: boolean;
}

/** The legend: the rate-difference ramp in points, the outline key, the grey and the dots. */
export function legendHtml(audit: AuditResult, scale: MapScale, options: LegendOptions): string {
  const words = rateWords(scale.equalOpp);
  const ramp = `linear-gradient(to right,${DIVERGING_STOPS.join(",")})`;
  const marks = scaleMarks(scale.cap).reverse().map((v) => `<span>${escapeXml(ppLabel(v, 2))}</span>`).join(
    "",
  );
  const parts = [
    `<div><div><b>Fill: ${escapeXml(words.rate)} difference</b> (region ${escapeXml(words.rate)} − overall ` +
    `${escapeXml(words.rate)}, percentage points; overall ${
      escapeXml(fmt(scale.overall * 100, 1))
    } %)</div>` +
    `<div class="ramp" style="background:${ramp};opacity:${options.fill}"></div>` +
    `<div class="ramp-labels">${marks}</div>` +
    `<div class="ramp-sides"><span style="color:#2166ac">below overall</span>` +
    `<span style="color:#b2182b">above overall</span></div>` +
    `<div style="color:#555;font-size:12px">Square-root scale (the marks are evenly spaced); differences ` +
    `beyond ±${escapeXml(ppLabel(scale.cap, 2).slice(1))} take the end colours.</div></div>`,
    `<div><span class="outline"></span>significant region (s ≥ T = ${
      escapeXml(fmt(audit.signif_thresh, 4))
    })` +
    (options.noData
      ? `<br><span class="swatch" style="background:${NO_DATA_COLOR}"></span>no one in scope`
      : "") +
    `</div>`,
  ];
  if (options.dotLabels) {
    const dot = (k: 0 | 1) =>
      `<span class="dot" style="background:${DOT_COLORS[k]}"></span>${escapeXml(options.dotLabels![k])}`;
    parts.push(`<div>${dot(0)}<br>${dot(1)}</div>`);
  }
  return `<div class="legend">${parts.join("")}</div>`;
}

/** Every region as a table row, for pages without geometry and as the page's accessible fallback. */
export function regionTable(features: RegionFeature[], scale: MapScale): string {
  const w = rateWords(scale.equalOpp);
  const head =
    `<tr><th>region</th><th>n</th><th>${scale.equalOpp ? "predicted positive" : "positives"}</th>` +
    `<th>${w.short}</th><th>${w.short} − overall (pp)</th><th>s</th><th>p-value</th><th>significant</th></tr>`;
  const rows = features.map((f) =>
    `<tr><td>${escapeXml(regionLabel(f))}</td><td>${f.n}</td><td>${f.p}</td>` +
    `<td>${f.rate === null ? "–" : fmt(f.rate * 100, 1) + " %"}</td>` +
    `<td><span class="swatch" style="background:${f.color}"></span>${
      f.diff === null ? "–" : escapeXml(ppLabel(f.diff))
    }</td>` +
    `<td>${fmt(f.s, 4)}</td><td>${fmt(f.pValue, 4)}</td><td>${f.signif ? "<b>yes</b>" : "no"}</td></tr>`
  );
  return `<table>${head}${rows.join("")}</table>`;
}

/** Header block: the escaped title and note lines. */
function header(title: string, notes: string[]): string {
  const lines = notes.map((n) => `<p>${escapeXml(n)}</p>`).join("");
  return `<header><h1>${escapeXml(title)}</h1>${lines}</header>`;
}

/**
 * Content-Security-Policy: only inline code runs; images only from the page, or the tile server (its
 * origin is a checked host or a bare scheme, so it needs no escaping in the attribute).
 */
function csp(tiles: TileSource | null): string {
  return "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
    `img-src data:${tiles ? " " + tiles.origin : ""}`;
}

/** A complete page: header, map, legend, `after` (trusted HTML), data island and inlined scripts. */
export function mapPage(
  title: string,
  notes: string[],
  legend: string,
  after: string,
  data: unknown,
  tiles: TileSource | null,
): string {
  // the page is Latin-1 throughout (latin1Html; jsonForScript; the styles and scripts are ASCII)
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp(tiles)}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${latin1Html(escapeXml(title))}</title>
<style>${leafletCss}</style><style>${STYLE}</style></head>
<body>${latin1Html(header(title, notes) + `<div id="map"></div>${legend}${after}`)}
<script>${inlineScript(leafletJs)}</script>
<script type="application/json" id="tessera-data">${jsonForScript(data)}</script>
<script>${inlineScript(clientJs)}</script>
</body></html>
`;
}

/** A page without a map: a notice saying why, then the per-region table. */
export function tablePage(title: string, notes: string[], notice: string, table: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp(null)}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${latin1Html(escapeXml(title))}</title><style>${STYLE}</style></head>
<body>${latin1Html(`${header(title, notes)}<div class="notice">${escapeXml(notice)}</div>${table}`)}
</body></html>
`;
}
