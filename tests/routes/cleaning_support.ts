/** Helpers for the cleaning route tests: demo datasets in the test's database and a job runner beside the app. */
import { importRecords } from "../../services/datasets/import.ts";
import { JobRunner } from "../../services/cleaning/job_runner.ts";
import { servicePool } from "../support/pools.ts";
import { SERIES_GAPS, tabularDemo, timeSeriesDemo } from "../../core/demo/datasets.ts";
import { jsonRequest, type StoreApp } from "../support/stores.ts";

/** Hours missing from the demo series (SERIES_GAPS): 6 + 12 + 3 = 21, in each of its columns. */
export const GAP_HOURS = SERIES_GAPS.reduce((s, [a, b]) => s + b - a, 0);

/** The `/run/` body that imputes the demo series' temperature by time interpolation. */
export const imputeSeries = {
  data: "sensor_readings",
  task: "impute",
  dtype: "timeseries",
  method: "time",
  date_col: "timestamp",
  params: { columns: ["temperature"] },
};

async function* asAsync<T>(it: Iterable<T>): AsyncGenerator<T> {
  yield* it;
}

/** Imports the seeded `sensor_readings` (1,440 hourly rows) and `customer_churn` (2,000 rows) demo datasets. */
export async function seedCleaningDemo(t: StoreApp): Promise<void> {
  for (
    const [name, rows] of [["sensor_readings", timeSeriesDemo()], ["customer_churn", tabularDemo()]] as const
  ) {
    await importRecords(t.store, t.config.TESSERA_DB, { db: t.db, collection: name }, asAsync(rows));
  }
}

/** A runner over the app's store with a one-worker pool (or as WORKERS says); `close()` stops both. */
export function testRunner(t: StoreApp, leaseMs = 10_000) {
  const pool = servicePool(1);
  const runner = new JobRunner(t.store, t.config.TESSERA_DB, pool, {
    leaseMs,
    pollMs: 50,
    timeoutMs: 60_000,
    maxAttempts: 3,
    concurrency: 1,
  });
  return {
    runner,
    async close() {
      await runner.stop();
      pool.close();
    },
  };
}

/** The documents of a dataset by id. */
export async function docsById(t: StoreApp, collection: string) {
  const out = new Map<string, Record<string, unknown>>();
  for await (const batch of t.store.stream({ db: t.db, collection })) {
    for (const d of batch) out.set(d._id, d);
  }
  return out;
}

/** Starts a job through `POST /run/` (with a token when given); asserts it was queued. */
export async function postRun(t: StoreApp, body: Record<string, unknown>, token?: string) {
  const res = await t.app.request("/run/", jsonRequest("POST", body, token));
  if (res.status !== 200) throw new Error(`run: ${res.status} ${await res.text()}`);
  return await res.json() as { job_id: string; status: string; created_by: string };
}

/** GETs a path (with a token when given) and returns status and JSON body. */
export async function getJson(t: StoreApp, path: string, token?: string) {
  const res = await t.app.request(path, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, body: await res.json() };
}

/** POSTs `/approve/` (with a token when given) and returns the raw response. */
export function approve(t: StoreApp, body: Record<string, unknown>, token?: string) {
  return t.app.request("/approve/", jsonRequest("POST", body, token));
}
