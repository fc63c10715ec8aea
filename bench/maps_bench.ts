/**
 * Map rendering at the sizes the audit meets: a 3,000-region map (a 60×50 grid of squares) and a
 * 10,000-dot distribution map (the default cap), as PNG and as HTML. `deno bench --allow-all bench/maps_bench.ts`
 */
import { distributionMapPng, fairMapPng } from "../core/spatial/maps/png.ts";
import { distributionMapHtml, fairMapHtml } from "../core/spatial/maps/html.ts";
import { samplePoints } from "../core/spatial/maps/sample.ts";
import { Rng } from "../core/random.ts";
import type { AuditResult, Regions, RegionStat, Ring } from "../core/spatial/types.ts";

/** `cols × rows` squares of 0.01° from (23.6, 37.8), with made-up statistics of a plausible spread. */
function grid(cols: number, rows: number): { regions: Regions; audit: AuditResult } {
  const rng = new Rng(7);
  const polygons: Ring[] = [];
  const stats: RegionStat[] = [];
  for (let i = 0; i < cols * rows; i++) {
    const [lon, lat] = [23.6 + (i % cols) * 0.01, 37.8 + Math.floor(i / cols) * 0.01];
    polygons.push([[lon, lat], [lon + 0.01, lat], [lon + 0.01, lat + 0.01], [lon, lat + 0.01]]);
    const n = 50 + rng.int(100), p = rng.int(n + 1), s = rng.next() ** 3 * 0.05;
    stats.push({
      idx: i,
      region_id: i,
      n,
      p,
      rate: p / n,
      raw_stat: 0,
      stat: s,
      p_value: 0.5,
      is_signif: s > 0.01,
    });
  }
  const regions: Regions = {
    source: "polygons",
    ids: stats.map((s) => s.idx),
    members: stats.map(() => new Int32Array(0)),
    polygons,
    unassigned: 0,
  };
  const audit: AuditResult = {
    sbi_score: 0.01,
    signif_thresh: 0.01,
    total_signif_regions: stats.filter((s) => s.is_signif).length,
    stats,
    n_individuals: stats.reduce((a, s) => a + s.n, 0),
    n_positives: stats.reduce((a, s) => a + s.p, 0),
  };
  return { regions, audit };
}

const big = grid(60, 50);
const small = grid(10, 8);
const rng = new Rng(3);
const N = 206_418;
const all = { lon: new Float64Array(N), lat: new Float64Array(N), cls: new Uint8Array(N) };
for (let i = 0; i < N; i++) {
  all.lon[i] = 23.6 + rng.next() * 0.1;
  all.lat[i] = 37.8 + rng.next() * 0.08;
  all.cls[i] = rng.next() < 0.3 ? 1 : 0;
}
const pick = samplePoints(N, 10_000, 42);
const drawn = {
  lon: pick.map((i) => all.lon[i]),
  lat: pick.map((i) => all.lat[i]),
  cls: pick.map((i) => all.cls[i]),
};
await fairMapPng(small.regions, small.audit); // initialise the renderer outside the timings

Deno.bench("fairMapPng, 3,000 regions", async () => {
  await fairMapPng(big.regions, big.audit);
});
Deno.bench("distributionMapPng, 10,000 dots over 80 regions", async () => {
  await distributionMapPng(small.regions, small.audit, drawn, { drawnOf: N });
});
Deno.bench("fairMapHtml, 3,000 regions", async () => {
  await fairMapHtml(big.regions, big.audit);
});
Deno.bench("distributionMapHtml, 10,000 dots over 80 regions", async () => {
  await distributionMapHtml(small.regions, small.audit, drawn, { drawnOf: N });
});
Deno.bench("samplePoints, 10,000 of 206,418", () => {
  samplePoints(N, 10_000, 42);
});
