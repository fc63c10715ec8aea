import assert from "node:assert/strict";
import {
  distributionMapHtml,
  fairMapHtml,
  flipsMapHtml,
  packPoints,
} from "../../../../core/spatial/maps/html.ts";
import { tileSource } from "../../../../core/spatial/maps/html_parts.ts";
import { jsonForScript } from "../../../../core/spatial/maps/text.ts";
import { fourRegions, square } from "./fixtures.ts";

const ISLAND = '<script type="application/json" id="tessera-data">';

/** The page's data island, parsed as a browser would (JSON.parse of the element's text). */
function island(html: string) {
  const start = html.indexOf(ISLAND);
  assert.ok(start >= 0, "data island present");
  const from = start + ISLAND.length;
  return JSON.parse(html.slice(from, html.indexOf("</script>", from)));
}

/** The page's text with its numeric character references read (`&#x2212;` → `−`), as a browser shows it. */
function shown(html: string): string {
  return html.replace(/&#x([0-9a-f]+);/gi, (_, hex) => String.fromCodePoint(parseInt(hex, 16)));
}

/** The page's Content-Security-Policy. */
function csp(html: string): string {
  const m = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
  assert.ok(m, "CSP present");
  return m[1];
}

/**
 * Everything in a page a browser would load from another host as it opens: a script, stylesheet,
 * image, frame or font given by URL, a CSS url() or @import, and images the CSP would let through.
 */
function remoteLoads(html: string): string[] {
  const found: string[] = [];
  for (
    const re of [
      /<(?:script|img|iframe|source|video|audio|embed)\b[^>]*\bsrc\s*=\s*["']?(?:https?:)?\/\/[^\s"'>]+/gi,
      /<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?\/\/[^\s"'>]+/gi,
      /url\(\s*["']?(?:https?:)?\/\/[^)]+\)/gi,
      /@import\s+["']?(?:url\()?["']?(?:https?:)?\/\//gi,
      /https?:\/\/[^\s"'<>]*\{z\}[^\s"'<>]*/gi, // a tile URL template
    ]
  ) found.push(...(html.match(re) ?? []));
  if (/img-src[^;]*(https?:|\*)/.test(csp(html))) found.push(`CSP: ${csp(html)}`);
  return found;
}

Deno.test("fairMapHtml: by default nothing is loaded from outside; the vector base map is in the page", async () => {
  const { regions, audit } = fourRegions();
  const html = await fairMapHtml(regions, audit);
  assert.ok(html.includes("Leaflet 1.9.4"), "Leaflet's JS is in the page");
  assert.ok(html.includes(".leaflet-container"), "Leaflet's CSS is in the page");
  assert.deepEqual(remoteLoads(html), []);
  assert.doesNotMatch(html, /<script[^>]*\bsrc\s*=/i);
  assert.doesNotMatch(html, /<link\b/i);
  assert.doesNotMatch(html, /openstreetmap/i);
  assert.match(csp(html), /default-src 'none'/);
  assert.match(csp(html), /img-src data:$/);
  const data = island(html);
  assert.equal(data.tiles, null);
  // Athens: land and coast around the squares, no U.S. states
  assert.ok(data.basemap.land.length > 0 && data.basemap.coast.length > 0);
  assert.deepEqual(data.basemap.states, []);
  assert.match(data.basemap.attribution, /Natural Earth/);
});

Deno.test("fairMapHtml: a tile URL switches to that tile layer, allowed by the CSP, without the vector map", async () => {
  const { regions, audit } = fourRegions();
  const url = "https://{s}.tiles.example.org/{z}/{x}/{y}.png";
  const html = await fairMapHtml(regions, audit, { tileUrl: url });
  const data = island(html);
  assert.deepEqual(data.tiles, { url, attribution: "Tiles: tiles.example.org" });
  assert.equal(data.basemap, null);
  assert.match(csp(html), /img-src data: https:\/\/\*\.tiles\.example\.org$/);
  assert.ok(remoteLoads(html).some((u) => u.includes("tiles.example.org/{z}")));
  // null is the default: the vector base map
  assert.equal(island(await fairMapHtml(regions, audit, { tileUrl: null })).tiles, null);
});

Deno.test("packPoints: first point absolute, then steps, in units of 10^-digits degrees", () => {
  assert.deepEqual(packPoints([[23.7, 37.9], [23.712, 37.905], [23.701, 37.9]], 3), [
    23700,
    37900,
    12,
    5,
    -11,
    -5,
  ]);
  assert.deepEqual(packPoints([[-98.5, 38.25]], 2), [-9850, 3825]);
  assert.deepEqual(packPoints([], 3), []);
});

Deno.test("tileSource: origin for the CSP and a credit line", () => {
  assert.deepEqual(tileSource("https://tile.openstreetmap.org/{z}/{x}/{y}.png"), {
    url: "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
    origin: "https://tile.openstreetmap.org",
    attribution: "© OpenStreetMap contributors",
  });
  assert.equal(tileSource("http://localhost:8080/t/{z}/{x}/{y}.png").origin, "http://localhost:8080");
  // a {s} that is not the host's first label: the scheme alone
  assert.equal(tileSource("https://a{s}.example.org/{z}/{x}/{y}").origin, "https:");
});

Deno.test("fairMapHtml: one feature per region with a polygon, coloured by rate difference, labelled", async () => {
  const { regions, audit } = fourRegions([
    square(23.7, 37.9),
    null,
    square(23.7, 37.91),
    square(23.71, 37.91),
  ]);
  const data = island(await fairMapHtml(regions, audit));
  assert.deepEqual(data.features.map((f: { id: number }) => f.id), [0, 20, 30]);
  const [f0, f2] = data.features;
  assert.equal(f0.color, "#67001f"); // +20 pp on a cap of 20: the end of the red side
  assert.equal(f0.signif, true);
  assert.ok(Math.abs(f0.diff - 20) < 1e-9 && Math.abs(f2.diff - 5) < 1e-9);
  assert.equal(f2.color, "#e58368"); // +5 pp: √(5/20) = ½ of the red side
  assert.deepEqual([f0.n, f0.positives, f0.rate, f0.p], [100, 50, 0.5, 0.5]);
  assert.ok(Math.abs(data.overall - 0.3) < 1e-12);
  assert.equal(data.rateName, "positive rate");
  assert.deepEqual(f0.latlngs[1], [37.9, 23.71]);
  // the label point: the centre of the square, as [lat, lon]
  assert.ok(Math.abs(f0.label[0] - 37.905) < 1e-9 && Math.abs(f0.label[1] - 23.705) < 1e-9);
  assert.equal(data.points, null);
});

Deno.test("fairMapHtml: legend and table in percentage points; TPR wording under equal opportunity", async () => {
  const { regions, audit } = fourRegions();
  const html = await fairMapHtml(regions, audit, { regionNames: { "10": "Piraeus" } });
  assert.match(html, /Fill: positive rate difference/);
  assert.match(html, /percentage points/);
  assert.match(
    shown(html),
    /<span>−20 pp<\/span><span>−5 pp<\/span><span>0 pp<\/span><span>\+5 pp<\/span><span>\+20 pp<\/span>/,
  );
  assert.match(html, /<td>10 · Piraeus<\/td>/);
  assert.match(html, /\+20 pp<\/td>/);
  assert.equal(island(html).features[1].name, "Piraeus");
  const eo = await fairMapHtml(regions, audit, { equalOpp: true });
  assert.match(eo, /Fill: true-positive rate difference/);
  assert.match(eo, /overall true-positive rate 30\.0 %/);
  assert.equal(island(eo).rateName, "true-positive rate");
});

Deno.test("fairMapHtml: user text is escaped in the page and cannot close the data island", async () => {
  const { regions, audit } = fourRegions();
  const evil = `y_pred"><script>alert(1)</script><img src=x onerror=alert(2)>`;
  const html = await fairMapHtml(regions, audit, {
    title: evil,
    notes: [`field: ${evil}`],
    regionNames: { "0": evil },
  });
  assert.ok(!html.includes("<script>alert(1)"));
  assert.ok(!html.includes("<img src=x"));
  assert.ok(
    html.includes("y_pred&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"),
  );
  assert.equal(island(html).features[0].name, evil);
  const json = jsonForScript({ name: "</script><script>alert(1)</script>\u2028" });
  assert.ok(!/<\/script/i.test(json) && !json.includes("\u2028"));
  assert.deepEqual(JSON.parse(json), { name: "</script><script>alert(1)</script>\u2028" });
});

Deno.test("map pages are Latin-1 throughout (one byte a character in V8), and read as the text they were given", async () => {
  const { regions, audit } = fourRegions();
  const title = "Ωmega − 😀 · café";
  const html = await fairMapHtml(regions, audit, { title, regionNames: { "10": "Πειραιάς →" } });
  // deno-lint-ignore no-control-regex -- Latin-1 is the range from U+0000
  assert.ok(/^[\x00-\xff]*$/.test(html));
  // the title and the table as the browser shows them; the island as its script reads it
  assert.ok(shown(html).includes(`<title>${title}</title>`));
  assert.ok(shown(html).includes("<td>10 · Πειραιάς →</td>"));
  assert.equal(island(html).features[1].name, "Πειραιάς →");
  assert.ok(html.includes("&#x1f600;")); // a character beyond the BMP is one reference, not two halves
  const table = await fairMapHtml({ ...regions, polygons: null }, audit, { title });
  // deno-lint-ignore no-control-regex -- Latin-1 is the range from U+0000
  assert.ok(/^[\x00-\xff]*$/.test(table));
  assert.ok(shown(table).includes(`<title>${title}</title>`));
});

Deno.test("distributionMapHtml: all given dots in the island, classes 0/1, sampled count stated", async () => {
  const { regions, audit } = fourRegions();
  const points = {
    lon: [23.701, 23.712, 23.705],
    lat: [37.901, 37.905, 37.915],
    cls: new Uint8Array([0, 1, 1]),
  };
  const html = await distributionMapHtml(regions, audit, points, { drawnOf: 400 });
  const data = island(html);
  assert.equal(data.features.length, 4);
  assert.deepEqual(data.points, {
    lon: [23.701, 23.712, 23.705],
    lat: [37.901, 37.905, 37.915],
    cls: [0, 1, 1],
  });
  assert.ok(html.includes("3 of 400 individuals drawn"));
  assert.deepEqual(remoteLoads(html), []);
});

Deno.test("flipsMapHtml: dots by direction and the count of each direction", async () => {
  const { regions, audit } = fourRegions();
  const flips = { lon: [23.701, 23.712, 23.705], lat: [37.901, 37.905, 37.915], cls: [1, 0, 1] };
  const html = await flipsMapHtml(regions, audit, flips);
  assert.deepEqual(island(html).points.cls, [1, 0, 1]);
  assert.ok(html.includes("Of these, 2 flipped from 0 to 1 and 1 from 1 to 0."));
  assert.ok(shown(html).includes("flipped 0 → 1"));
  assert.match(html, /percentage points/);
});

Deno.test("fairMapHtml: without any geometry, a page that says so and lists every region", async () => {
  const { regions, audit } = fourRegions(null);
  const html = await fairMapHtml(regions, audit);
  assert.ok(!html.includes("Leaflet 1.9.4") && !html.includes(ISLAND));
  assert.match(html, /no geometry/);
  assert.equal(html.match(/<tr>/g)?.length, 5); // header + 4 regions
  assert.ok(html.includes("<td>30</td>"), "region ids listed");
  assert.deepEqual(remoteLoads(html), []);
  const dist = await distributionMapHtml(regions, audit, { lon: [], lat: [], cls: [] });
  assert.match(dist, /No individual has coordinates/);
});
