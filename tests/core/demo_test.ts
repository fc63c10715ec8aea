import assert from "node:assert/strict";
import {
  SERIES_ANOMALIES,
  SERIES_GAPS,
  SPATIAL_DEMO,
  spatialDemo,
  tabularDemo,
  timeSeriesDemo,
} from "../../core/demo/datasets.ts";

Deno.test("spatial demo: the planted cells approve clearly fewer than the rest", () => {
  const rows = [...spatialDemo({ ...SPATIAL_DEMO, n: 20_000 })];
  assert.equal(rows.length, 20_000);
  const biased = new Set(SPATIAL_DEMO.biased);
  const rate = (keep: (cell: number) => boolean) => {
    const sel = rows.filter((r) => keep((r.region_ids as number[])[0]));
    return sel.reduce((s, r) => s + (r.y_pred as number), 0) / sel.length;
  };
  assert.ok(rate((c) => biased.has(c)) < rate((c) => !biased.has(c)) - 0.1);
  for (const r of rows.slice(0, 100)) {
    assert.equal(r.y_pred, (r.y_pred_prob as number) > 0.5 ? 1 : 0);
    assert.ok((r.region_ids as number[])[0] >= 0 && (r.region_ids as number[])[0] < 25);
  }
});

Deno.test("tabular demo: target last, a few gaps, deterministic", () => {
  const rows = [...tabularDemo(500)];
  assert.equal(Object.keys(rows[0]).at(-1), "churn");
  assert.ok(rows.some((r) => r.age === null));
  assert.deepEqual([...tabularDemo(500)], rows);
});

Deno.test("time-series demo: gaps are null and spikes stand 10 °C above their neighbours", () => {
  const rows = [...timeSeriesDemo()];
  assert.equal(rows.length, 1440);
  for (const [a, b] of SERIES_GAPS) for (let h = a; h < b; h++) assert.equal(rows[h].temperature, null);
  for (const h of SERIES_ANOMALIES) {
    const t = rows[h].temperature as number;
    assert.ok(t - (rows[h - 1].temperature as number) > 10 && t - (rows[h + 1].temperature as number) > 10);
  }
});
