import assert from "node:assert/strict";
import {
  barChartPng,
  distributionMapPng,
  fairMapPng,
  flipsMapPng,
  svgToPng,
} from "../../../../core/spatial/maps/png.ts";
import { BAR_COLORS, barChartSvg, thresholdBars } from "../../../../core/spatial/maps/chart_svg.ts";
import {
  BASEMAP_STYLE,
  fairMapSvg,
  mapProjection,
  MAX_LABELS,
  svgDocument,
  svgText,
} from "../../../../core/spatial/maps/svg.ts";
import { runAudit } from "../../../../core/spatial/audit.ts";
import type { AuditResult, Regions, Ring } from "../../../../core/spatial/types.ts";
import { colorCounts, decodeBase64Png, type DecodedPng, decodePng } from "./png_decode.ts";
import { fourRegions, square, stat } from "./fixtures.ts";

/** Region colours of fourRegions: +20, −20, +5, −5 pp on a cap of 20 (see map_value_test). */
const REGION_COLORS = ["#67001f", "#053061", "#e58368", "#6bacd1"];
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

/** RGB of the pixel at (x, y). */
function pixel(png: DecodedPng, x: number, y: number): [number, number, number] {
  const i = (Math.round(y) * png.width + Math.round(x)) * 4;
  return [png.rgba[i], png.rgba[i + 1], png.rgba[i + 2]];
}

/**
 * A planted case, audited for real: nine squares of 0.2° over Attica (land and sea), 300 individuals
 * each, 30 % positive everywhere except the centre square (region 4, 60 %: planted above) and the corner
 * square (region 0, 10 %: planted below).
 */
function planted(): { regions: Regions; audit: AuditResult; centers: [number, number][] } {
  const polygons: Ring[] = [], members: Int32Array[] = [], centers: [number, number][] = [];
  const labels: number[] = [];
  for (let r = 0; r < 9; r++) {
    const [lon, lat] = [23.4 + (r % 3) * 0.2, 37.7 + Math.floor(r / 3) * 0.2];
    polygons.push(square(lon, lat, 0.2));
    centers.push([lon + 0.1, lat + 0.1]);
    const rate = r === 4 ? 0.6 : r === 0 ? 0.1 : 0.3;
    members.push(Int32Array.from({ length: 300 }, (_, k) => labels.length + k));
    for (let k = 0; k < 300; k++) labels.push(k < rate * 300 ? 1 : 0);
  }
  const regions: Regions = {
    source: "polygons",
    ids: [...polygons.keys()],
    members,
    polygons,
    unassigned: 0,
  };
  const out = runAudit({
    labels: Uint8Array.from(labels),
    regions,
    nWorlds: 200,
    signifLevel: 0.05,
    seed: 1,
    rng: "fast",
  });
  const { world_max: _w, timing_ms: _t, ...audit } = out;
  return { regions, audit, centers };
}

Deno.test("svgToPng: the bundled fonts draw text, regular and bold (dark pixels on white)", async () => {
  for (const weight of ["", `font-weight="700"`]) {
    const png = decodePng(await svgToPng(svgDocument(120, 40, svgText(8, 28, "Tessera", 20, weight))));
    assert.equal(png.width, 120);
    const dark = [...colorCounts(png)].filter(([c]) => parseInt(c.slice(1, 3), 16) < 100).length;
    assert.ok(dark > 0, "text rendered");
  }
});

Deno.test("fairMapPng: a planted significant region is drawn on the 'above' side, a low one on the other", async () => {
  const { regions, audit, centers } = planted();
  // the audit finds the planted squares: region 4 above the overall rate, region 0 below
  const overall = audit.n_positives / audit.n_individuals; // (0.6 + 0.1 + 7 · 0.3) / 9 = 0.3111
  assert.ok(Math.abs(overall - 2.8 / 9) < 1e-12);
  assert.ok(audit.stats[4].is_signif && audit.stats[4].rate! > overall);
  assert.ok(audit.stats[0].is_signif && audit.stats[0].rate! < overall);
  const png = decodeBase64Png(await fairMapPng(regions, audit, { title: "Planted" }));
  assert.deepEqual([png.width, png.height], [800, 600]);
  const project = mapProjection([23.4, 37.7, 24.0, 38.3]);
  // a quarter of the way in from a corner: inside the square, away from its label and outline
  const at = (r: number) =>
    pixel(png, ...(project(centers[r][0] - 0.05, centers[r][1] + 0.05) as [number, number]));
  const nearWhite = ([r, g, b]: number[]) => Math.min(r, g, b) > 215;
  const above = at(4), below = at(0), plain = at(1);
  // above: +28.9 pp, the cap's region, the darkest red; below: −21.1 pp on the same cap (√0.73: dark blue)
  assert.ok(above[0] - above[2] > 60 && !nearWhite(above), `region 4 ${above}`);
  assert.ok(below[2] - below[0] > 60 && !nearWhite(below), `region 0 ${below}`);
  // a square at 30 % is 1.1 pp below the overall rate: pale, a little on the blue side
  assert.ok(plain[2] >= plain[0] && Math.min(...plain) > 150, `region 1 ${plain}`);
  // the base map is drawn: sea and land around the squares
  const counts = colorCounts(png);
  assert.ok((counts.get(BASEMAP_STYLE.sea) ?? 0) > 2000, "sea");
  assert.ok((counts.get(BASEMAP_STYLE.land) ?? 0) > 2000, "land");
});

Deno.test("fairMapSvg: region ids as labels where they fit, the legend in percentage points", () => {
  const { regions, audit } = planted();
  const svg = fairMapSvg(regions, audit, {}, null);
  for (let r = 0; r < 9; r++) assert.match(svg, new RegExp(`>${r}</text>`), `label ${r}`);
  assert.match(svg, /region rate − overall rate/);
  assert.match(svg, /percentage points/);
  assert.match(svg, /\+32 pp/); // cap: 28.9 pp rounded up
  assert.match(svg, /\+8 pp/); // cap / 4
  assert.match(svg, /significant/);
  const eo = fairMapSvg(regions, audit, { equalOpp: true, regionNames: { "4": "Centre" } }, null);
  assert.match(eo, /region TPR − overall TPR/);
  assert.match(eo, />4 · Centre</);
});

Deno.test("fairMapSvg: thousands of overlapping regions get at most MAX_LABELS labels, none over another", () => {
  // 40 seeds × 30 nested squares (ids s·30 + k): every square of a seed has the same label point
  const polygons: Ring[] = [], stats = [];
  for (let seed = 0; seed < 40; seed++) {
    for (let k = 0; k < 30; k++) {
      const h = 0.05 + k * 0.05, lon = -120 + (seed % 8) * 7, lat = 28 + Math.floor(seed / 8) * 4;
      polygons.push([[lon - h, lat - h], [lon + h, lat - h], [lon + h, lat + h], [lon - h, lat + h]]);
      stats.push({
        ...stat(polygons.length - 1, 100, 30, 0.1, seed === 7 && k === 25),
        region_id: polygons.length - 1,
      });
    }
  }
  const regions: Regions = {
    source: "polygons",
    ids: polygons.map((_, r) => r),
    members: polygons.map(() => new Int32Array(0)),
    polygons,
    unassigned: 0,
  };
  const audit: AuditResult = {
    sbi_score: 0,
    signif_thresh: 0.1,
    total_signif_regions: 1,
    stats,
    n_individuals: 120_000,
    n_positives: 36_000,
  };
  const labels = [
    ...fairMapSvg(regions, audit, {}, null).matchAll(
      /<text x="([\d.]+)" y="([\d.]+)"[^>]*stroke-width="2.6"[^>]*>(\d+)<\/text>/g,
    ),
  ];
  assert.ok(labels.length > 0 && labels.length <= MAX_LABELS, `${labels.length} labels`);
  // one label per seed at most (its squares share a label point), and the significant one is labelled
  const seeds = labels.map((m) => Math.floor(Number(m[3]) / 30));
  assert.equal(new Set(seeds).size, seeds.length);
  // the significant region is labelled, not the larger squares around it
  assert.ok(labels.some((m) => m[3] === "235"), "the significant region 235 is labelled");
});

Deno.test("fairMapPng: an 800×600 PNG with the region colours of the rate-difference scale", async () => {
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

Deno.test("thresholdBars: colours by the before audit, outlines by the audit after", () => {
  const { audit } = fourRegions();
  const after = { ...audit, stats: audit.stats.map((s) => ({ ...s, is_signif: s.idx === 1 })) };
  const bars = thresholdBars(audit, [0.3, 0.62, 0.45, 0.5], after);
  assert.deepEqual(bars.map((b) => b.label), [0, 10, 20, 30]);
  assert.deepEqual(bars.map((b) => b.category), ["above", "below", "none", "none"]);
  assert.deepEqual(bars.map((b) => b.outlined), [false, true, false, false]);
  assert.deepEqual(thresholdBars(audit, [0.5, 0.5, 0.5, 0.5]).map((b) => b.outlined), [
    false,
    false,
    false,
    false,
  ]);
});

Deno.test("barChartSvg: each run of neighbours drawn alike is one path of their bars, in order", () => {
  const bar = (category: "above" | "below" | "none", outlined = false) => ({
    label: 0,
    value: 0.5,
    category,
    outlined,
  });
  const bars = [
    bar("above"),
    bar("above"),
    bar("none"),
    bar("none"),
    bar("none"),
    bar("none", true),
    bar("above"),
  ];
  const paths = [
    ...barChartSvg(bars, { reference: 0.5 }).matchAll(/<path d="([^"]*)" fill="([^"]*)"( stroke)?/g),
  ];
  // [colour, bars, outlined] of each path
  const runs = paths.map((p) => [p[2], p[1].split("M").length - 1, p[3] !== undefined]);
  const { above, none } = BAR_COLORS;
  assert.deepEqual(runs, [[above, 2, false], [none, 3, false], [none, 1, true], [above, 1, false]]);
  // 7 slots of 710 / 7 px from x = 70, 15 % of each a gap; the plot spans y 78 to 422, so 0.5 of 1 is y = 250
  const slot = 710 / 7;
  const first = paths[0][1].split("M")[1].match(/^([\d.]+) ([\d.]+)h([\d.]+)V([\d.]+)h(-[\d.]+)Z$/)!.slice(1)
    .map(Number);
  const expected = [70 + slot * 0.075, 250, slot * 0.85, 422, -slot * 0.85];
  first.forEach((v, i) => assert.ok(Math.abs(v - expected[i]) < 1e-9, `${v} against ${expected[i]}`));
});

Deno.test("barChartPng: 800×500, bars in the three labelled colours, reference line drawn", async () => {
  const { audit } = fourRegions();
  const bars = thresholdBars(audit, [0.3, 0.62, 0.45, 0.5], audit);
  const png = decodeBase64Png(await barChartPng(bars, { reference: 0.5, outlineLabel: "still significant" }));
  assert.deepEqual([png.width, png.height], [800, 500]);
  const counts = colorCounts(png);
  for (const c of Object.values(BAR_COLORS)) assert.ok((counts.get(c) ?? 0) > 1000, `bar colour ${c}`);
  assert.ok((counts.get("#111111") ?? 0) > 100, "dashed reference line");
});
