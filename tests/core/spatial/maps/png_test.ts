import assert from "node:assert/strict";
import {
  barChartPng,
  distributionMapPng,
  fairMapPng,
  flipsMapPng,
  svgToPng,
} from "../../../../core/spatial/maps/png.ts";
import { thresholdBars } from "../../../../core/spatial/maps/chart_svg.ts";
import { svgDocument, svgText } from "../../../../core/spatial/maps/svg.ts";
import { colorCounts, decodeBase64Png, decodePng } from "./png_decode.ts";
import { fourRegions } from "./fixtures.ts";

/** Region colours of fourRegions: map values +1, −0.6, +0.1, −0.04 on RdBu (see map_value_test). */
const REGION_COLORS = ["#67001f", "#4393c3", "#fae9df"];
const DOTS = ["#762a83", "#1b7837"];

/** Dots spread over the four squares, alternating classes. */
function dots(n: number) {
  const lon = new Float64Array(n), lat = new Float64Array(n), cls = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    lon[i] = 23.7 + ((i * 37) % 200) / 10_000;
    lat[i] = 37.9 + ((i * 91) % 200) / 10_000;
    cls[i] = i % 2;
  }
  return { lon, lat, cls };
}

Deno.test("svgToPng: the bundled font draws text (dark pixels on white)", async () => {
  const png = decodePng(await svgToPng(svgDocument(120, 40, svgText(8, 28, "Tessera", 20))));
  assert.equal(png.width, 120);
  const dark = [...colorCounts(png)].filter(([c]) => parseInt(c.slice(1, 3), 16) < 100).length;
  assert.ok(dark > 0, "text rendered");
});

Deno.test("fairMapPng: an 800×600 PNG with the region colours and several distinct colours", async () => {
  const { regions, audit } = fourRegions();
  const png = decodeBase64Png(await fairMapPng(regions, audit, { title: "<b>x</b> & y" }));
  assert.equal(png.width, 800);
  assert.equal(png.height, 600);
  const counts = colorCounts(png);
  assert.ok(counts.size > 20, `${counts.size} colours`);
  for (const c of REGION_COLORS) {
    assert.ok((counts.get(c) ?? 0) > 500, `region colour ${c}: ${counts.get(c)}`);
  }
});

Deno.test("distributionMapPng and flipsMapPng: both dot colours drawn", async () => {
  const { regions, audit } = fourRegions();
  for (const render of [distributionMapPng, flipsMapPng]) {
    const png = decodeBase64Png(await render(regions, audit, dots(300)));
    assert.deepEqual([png.width, png.height], [800, 600]);
    const counts = colorCounts(png);
    for (const c of DOTS) assert.ok((counts.get(c) ?? 0) > 300, `dot colour ${c}: ${counts.get(c)}`);
  }
});

Deno.test("fairMapPng: without geometry, one coloured cell per region", async () => {
  const { regions, audit } = fourRegions(null);
  const counts = colorCounts(decodeBase64Png(await fairMapPng(regions, audit)));
  for (const c of REGION_COLORS) assert.ok((counts.get(c) ?? 0) > 500, `cell colour ${c}`);
});

Deno.test("barChartPng: 800×500, bars coloured by map value, reference line drawn", async () => {
  const { audit } = fourRegions();
  const bars = thresholdBars(audit, [0.3, 0.62, 0.45, 0.5]);
  assert.deepEqual(bars.map((b) => b.label), [0, 10, 20, 30]);
  assert.deepEqual(bars.map((b) => b.outlined), [true, true, false, false]);
  const png = decodeBase64Png(await barChartPng(bars, { reference: 0.5 }));
  assert.deepEqual([png.width, png.height], [800, 500]);
  const counts = colorCounts(png);
  for (const c of REGION_COLORS) assert.ok((counts.get(c) ?? 0) > 1000, `bar colour ${c}`);
  assert.ok((counts.get("#111111") ?? 0) > 100, "dashed reference line");
});
