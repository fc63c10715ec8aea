/** Writes the demo datasets and the demo spatial task (`deno task seed`, and `deno task dev` on first start). */
import type { Store } from "../../store/store.ts";
import { importRecords } from "../datasets/import.ts";
import { listDatasets } from "../datasets/registry.ts";
import { taskDocumentsRef } from "../tasks/task_documents.ts";
import { spatialDemo, tabularDemo, timeSeriesDemo } from "../../core/demo/datasets.ts";

export const DEMO_DB = "demo";
export const DEMO_SPATIAL = "loan_approvals";
export const DEMO_TABULAR = "customer_churn";
export const DEMO_SERIES = "sensor_readings";

async function* asAsync<T>(it: Iterable<T>): AsyncGenerator<T> {
  yield* it;
}

/** True when the dataset registry holds no dataset yet. */
export async function isEmpty(store: Store, tesseraDb: string): Promise<boolean> {
  return (await listDatasets(store, tesseraDb)).length === 0;
}

/** Imports the three demo datasets (replacing earlier copies) and writes the spatial task document. */
export async function seedDemo(store: Store, tesseraDb: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (
    const [name, rows] of [
      [DEMO_SPATIAL, spatialDemo()],
      [DEMO_TABULAR, tabularDemo()],
      [DEMO_SERIES, timeSeriesDemo()],
    ] as const
  ) {
    const r = await importRecords(store, tesseraDb, { db: DEMO_DB, collection: name }, asAsync(rows), {
      replace: true,
    });
    counts[name] = r.rows;
  }
  await store.put(taskDocumentsRef(tesseraDb), {
    _id: DEMO_SPATIAL,
    pipeline_name: "credit-scoring-demo",
    database_name: DEMO_DB,
    data_collection_name: DEMO_SPATIAL,
    status: "pending",
    component: "spatial-fairness",
    started_at: new Date().toISOString(),
    ended_at: null,
  });
  return counts;
}
