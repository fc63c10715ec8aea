/**
 * Demo datasets with known structure, so a new user sees every endpoint answer something meaningful:
 * a spatial task with planted regional bias, a tabular classification table, and a time series with
 * gaps and planted anomalies. Everything is seeded: the same seed gives the same rows.
 */
import { Rng } from "../random.ts";

type Row = Record<string, unknown>;
const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** Grid cells (rows × cols) over a bounding box; regions listed in `biased` get a harsher model. */
export interface SpatialDemoOptions {
  n: number;
  seed: number;
  grid: [number, number];
  bbox: [number, number, number, number]; // [minLon, minLat, maxLon, maxLat]
  biased: number[];
}

export const SPATIAL_DEMO: SpatialDemoOptions = {
  n: 50_000,
  seed: 7,
  grid: [5, 5],
  bbox: [20.5, 35.5, 27.5, 41.5],
  biased: [6, 12, 18],
};

/**
 * Loan decisions at locations: y_true from a latent score, y_pred_prob a calibrated model of it,
 * except in the `biased` cells where the model subtracts 1.2 logits (fewer approvals than deserved).
 */
export function* spatialDemo(o: SpatialDemoOptions = SPATIAL_DEMO): Generator<Row> {
  const rng = new Rng(o.seed);
  const [rows, cols] = o.grid;
  const [x0, y0, x1, y1] = o.bbox;
  const biased = new Set(o.biased);
  for (let i = 0; i < o.n; i++) {
    const lon = x0 + (x1 - x0) * rng.next();
    const lat = y0 + (y1 - y0) * rng.next();
    const cell = Math.min(rows - 1, Math.floor(((lat - y0) / (y1 - y0)) * rows)) * cols +
      Math.min(cols - 1, Math.floor(((lon - x0) / (x1 - x0)) * cols));
    const latent = rng.normal() * 1.5 - 0.3;
    const yTrue = rng.next() < sigmoid(latent) ? 1 : 0;
    const score = latent + rng.normal() * 0.8 - (biased.has(cell) ? 1.2 : 0);
    const prob = round(sigmoid(score), 4);
    yield {
      lat: round(lat, 5),
      lon: round(lon, 5),
      y_true: yTrue,
      y_pred: prob > 0.5 ? 1 : 0,
      y_pred_prob: prob,
      region_ids: [cell],
    };
  }
}

/**
 * Customer churn: eight numeric features, one categorical, ~3 % missing cells, and a label that
 * depends mostly on `tenure_months` and `support_calls` (so feature importance has a right answer).
 */
export function* tabularDemo(n = 2000, seed = 11): Generator<Row> {
  const rng = new Rng(seed);
  const plans = ["basic", "standard", "premium"];
  for (let i = 0; i < n; i++) {
    const tenure = Math.floor(rng.next() * 72);
    const calls = Math.floor(-Math.log(1 - rng.next()) * 2);
    const charges = round(20 + rng.next() * 100, 2);
    const plan = plans[rng.int(3)];
    const age = Math.floor(18 + rng.next() * 60);
    const risk = -0.06 * tenure + 0.7 * calls + 0.01 * (charges - 70) + (plan === "basic" ? 0.4 : 0) +
      rng.normal();
    const row: Row = {
      customer_id: `C${String(i + 1).padStart(5, "0")}`,
      age,
      tenure_months: tenure,
      monthly_charges: charges,
      total_charges: round(charges * tenure * (0.95 + rng.next() * 0.1), 2),
      support_calls: calls,
      data_usage_gb: round(Math.abs(rng.normal() * 8 + 15), 2),
      contract_plan: plan,
      satisfaction: round(Math.min(10, Math.max(0, 7 - 0.8 * calls + rng.normal())), 1),
      churn: risk > 0 ? 1 : 0,
    };
    for (const k of ["age", "monthly_charges", "data_usage_gb", "satisfaction"]) {
      if (rng.next() < 0.03) row[k] = null;
    }
    yield row;
  }
}

/** The hours of the time-series demo that carry planted spikes, and its gaps. */
export const SERIES_ANOMALIES = [200, 555, 901, 1203];
export const SERIES_GAPS: [number, number][] = [[100, 106], [700, 712], [1300, 1303]];

/**
 * Hourly temperature and humidity over 60 days: daily cycle, slow trend, noise; gaps (null values)
 * and spikes of +15 °C at the hours in SERIES_ANOMALIES.
 */
export function* timeSeriesDemo(seed = 5, start = Date.UTC(2026, 0, 1)): Generator<Row> {
  const rng = new Rng(seed);
  const spikes = new Set(SERIES_ANOMALIES);
  const inGap = (h: number) => SERIES_GAPS.some(([a, b]) => h >= a && h < b);
  for (let h = 0; h < 60 * 24; h++) {
    const daily = Math.sin((2 * Math.PI * (h % 24 - 9)) / 24);
    let temp = 12 + 6 * daily + 0.002 * h + rng.normal() * 0.6;
    if (spikes.has(h)) temp += 15;
    const humidity = 65 - 12 * daily + rng.normal() * 2;
    yield {
      timestamp: new Date(start + h * 3600_000).toISOString(),
      temperature: inGap(h) ? null : round(temp, 2),
      humidity: inGap(h) ? null : round(humidity, 1),
    };
  }
}
