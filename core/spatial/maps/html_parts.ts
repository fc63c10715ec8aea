/**
 * The pieces of a self-contained map page: Leaflet's JS and CSS inlined from its npm package (no CDN at
 * run time), the legend, the per-region table, and the page shell with a strict Content-Security-Policy.
 */
import leafletJs from "leaflet/dist/leaflet.js" with { type: "text" };
import leafletCss from "leaflet/dist/leaflet.css" with { type: "text" };
import clientJs from "./leaflet_client.js" with { type: "text" };
import { DIVERGING_STOPS } from "./map_value.ts";
import { escapeXml, fmt, jsonForScript } from "./text.ts";
import type { RegionFeature } from "./features.ts";
import { DOT_COLORS } from "./inputs.ts";

/** Page styles of ours, after Leaflet's. */
const STYLE = `
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;background:#fff}
header{padding:10px 16px}h1{font-size:18px;margin:0 0 4px}header p{margin:2px 0;color:#555}
#map{height:calc(100vh - 150px);min-height:360px;background:#e8edf1}
.legend{display:flex;flex-wrap:wrap;gap:24px;align-items:center;padding:8px 16px;font-size:13px}
.ramp{width:260px;height:12px;border:1px solid #999}
.ramp-labels{display:flex;justify-content:space-between;width:262px;color:#555}
.swatch{display:inline-block;width:12px;height:12px;border:1px solid #999;vertical-align:middle;margin-right:4px}
.outline{display:inline-block;width:18px;height:10px;border:3px solid #000;vertical-align:middle;margin-right:4px}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;vertical-align:middle;margin-right:4px}
.notice{margin:16px;padding:12px 16px;background:#fff8e1;border:1px solid #f0d58c}
table{border-collapse:collapse;margin:0 16px 16px}th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right}
th{background:#f4f4f4}`;

/** Leaflet's source with any `</script` sequence broken up, so it cannot end its own script element. */
function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, "<\\/$1");
}

/** The colour-scale legend; `threshold` labels the ±0.2 marks; `dotLabels` name dot classes 0 and 1. */
export function legendHtml(threshold: number, dotLabels: [string, string] | null): string {
  const ramp = `linear-gradient(to right,${DIVERGING_STOPS.join(",")})`;
  const parts = [
    `<div><div class="ramp" style="background:${ramp}"></div>` +
    `<div class="ramp-labels"><span>−1</span><span>−0.2</span><span>0</span><span>+0.2</span><span>+1</span></div>` +
    `<div>blue: rate below the global rate · red: above · |value| ≥ 0.2 means s ≥ T = ${
      escapeXml(fmt(threshold, 4))
    }</div></div>`,
    `<div><span class="outline"></span>significant region (s ≥ T)</div>`,
  ];
  if (dotLabels) {
    const dot = (k: 0 | 1) =>
      `<span class="dot" style="background:${DOT_COLORS[k]}"></span>${escapeXml(dotLabels[k])}`;
    parts.push(`<div>${dot(0)}<br>${dot(1)}</div>`);
  }
  return `<div class="legend">${parts.join("")}</div>`;
}

/** Every region as a table row, for pages without geometry and as the page's accessible fallback. */
export function regionTable(features: RegionFeature[]): string {
  const head = "<tr><th>region</th><th>n</th><th>positives</th><th>rate</th><th>s</th><th>p-value</th>" +
    "<th>significant</th><th>map value</th></tr>";
  const rows = features.map((f) =>
    `<tr><td>${escapeXml(f.id)}</td><td>${f.n}</td><td>${f.p}</td><td>${fmt(f.rate, 3)}</td>` +
    `<td>${fmt(f.s, 4)}</td><td>${fmt(f.pValue, 4)}</td><td>${f.signif ? "yes" : "no"}</td>` +
    `<td><span class="swatch" style="background:${f.color}"></span>${fmt(f.value, 3)}</td></tr>`
  );
  return `<table>${head}${rows.join("")}</table>`;
}

/** Header block: the escaped title and note lines. */
function header(title: string, notes: string[]): string {
  const lines = notes.map((n) => `<p>${escapeXml(n)}</p>`).join("");
  return `<header><h1>${escapeXml(title)}</h1>${lines}</header>`;
}

/** Content-Security-Policy: only inline code runs; images (tiles) may come over https. */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src https: data:";

/** A complete page: header, map, legend, `after` (trusted HTML), data island and inlined scripts. */
export function mapPage(
  title: string,
  notes: string[],
  legend: string,
  after: string,
  data: unknown,
): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeXml(title)}</title>
<style>${leafletCss}</style><style>${STYLE}</style></head>
<body>${header(title, notes)}<div id="map"></div>${legend}${after}
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
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeXml(title)}</title><style>${STYLE}</style></head>
<body>${header(title, notes)}<div class="notice">${escapeXml(notice)}</div>${table}
</body></html>
`;
}
