import assert from "node:assert/strict";
import { distributionMapHtml, fairMapHtml, flipsMapHtml } from "../../../../core/spatial/maps/html.ts";
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

Deno.test("fairMapHtml: Leaflet inlined, nothing loaded from outside but tiles", () => {
  const { regions, audit } = fourRegions();
  const html = fairMapHtml(regions, audit);
  assert.ok(html.includes("Leaflet 1.9.4"), "Leaflet's JS is in the page");
  assert.ok(html.includes(".leaflet-container"), "Leaflet's CSS is in the page");
  assert.doesNotMatch(html, /<script[^>]*\bsrc\s*=/i);
  assert.doesNotMatch(html, /<link\b/i);
  assert.match(html, /Content-Security-Policy/);
  assert.equal(island(html).tileUrl, "https://tile.openstreetmap.org/{z}/{x}/{y}.png");
  assert.equal(island(fairMapHtml(regions, audit, { tileUrl: null })).tileUrl, null);
});

Deno.test("fairMapHtml: one feature per region with a polygon, coloured by map value, rings as [lat, lon]", () => {
  const { regions, audit } = fourRegions([
    square(23.7, 37.9),
    null,
    square(23.7, 37.91),
    square(23.71, 37.91),
  ]);
  const data = island(fairMapHtml(regions, audit));
  assert.equal(data.features.length, 3);
  assert.deepEqual(data.features.map((f: { id: number }) => f.id), [0, 20, 30]);
  assert.equal(data.features[0].color, "#67001f"); // map value +1
  assert.equal(data.features[0].signif, true);
  assert.deepEqual(data.features[0].latlngs[1], [37.9, 23.71]);
  assert.equal(data.points, null);
});

Deno.test("fairMapHtml: user text is escaped in the page and cannot close the data island", () => {
  const { regions, audit } = fourRegions();
  const evil = `y_pred"><script>alert(1)</script><img src=x onerror=alert(2)>`;
  const html = fairMapHtml(regions, audit, { title: evil, notes: [`field: ${evil}`] });
  assert.ok(!html.includes("<script>alert(1)"));
  assert.ok(!html.includes("<img src=x"));
  assert.ok(
    html.includes("y_pred&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"),
  );
  const json = jsonForScript({ name: "</script><script>alert(1)</script>\u2028" });
  assert.ok(!/<\/script/i.test(json) && !json.includes("\u2028"));
  assert.deepEqual(JSON.parse(json), { name: "</script><script>alert(1)</script>\u2028" });
});

Deno.test("distributionMapHtml: all given dots in the island, classes 0/1, sampled count stated", () => {
  const { regions, audit } = fourRegions();
  const points = {
    lon: [23.701, 23.712, 23.705],
    lat: [37.901, 37.905, 37.915],
    cls: new Uint8Array([0, 1, 1]),
  };
  const html = distributionMapHtml(regions, audit, points, { drawnOf: 400 });
  const data = island(html);
  assert.equal(data.features.length, 4);
  assert.deepEqual(data.points, {
    lon: [23.701, 23.712, 23.705],
    lat: [37.901, 37.905, 37.915],
    cls: [0, 1, 1],
  });
  assert.ok(html.includes("3 of 400 individuals drawn"));
});

Deno.test("flipsMapHtml: dots by direction and the count of each direction", () => {
  const { regions, audit } = fourRegions();
  const flips = { lon: [23.701, 23.712, 23.705], lat: [37.901, 37.905, 37.915], cls: [1, 0, 1] };
  const html = flipsMapHtml(regions, audit, flips);
  assert.deepEqual(island(html).points.cls, [1, 0, 1]);
  assert.ok(html.includes("Of these, 2 flipped from 0 to 1 and 1 from 1 to 0."));
  assert.ok(html.includes("flipped 0 → 1"));
});

Deno.test("fairMapHtml: without any geometry, a page that says so and lists every region", () => {
  const { regions, audit } = fourRegions(null);
  const html = fairMapHtml(regions, audit);
  assert.ok(!html.includes("Leaflet 1.9.4") && !html.includes(ISLAND));
  assert.match(html, /no geometry/);
  assert.equal(html.match(/<tr>/g)?.length, 5); // header + 4 regions
  assert.ok(html.includes("<td>30</td>"), "region ids listed");
  const dist = distributionMapHtml(regions, audit, { lon: [], lat: [], cls: [] });
  assert.match(dist, /No individual has coordinates/);
});
