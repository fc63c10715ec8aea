/** Writes the demo datasets and the demo spatial task (`deno task seed`, and `deno task dev` on first start). */
import type { Store } from "../../store/store.ts";
import { importRecords } from "../datasets/import.ts";
import { SEED_DECIDER } from "../datasets/dataset_decisions.ts";
import { listDatasets } from "../datasets/registry.ts";
import { taskDocumentsRef } from "../tasks/task_documents.ts";
import { ConflictError } from "../../core/errors.ts";
import { spatialDemo, tabularDemo, timeSeriesDemo } from "../../core/demo/datasets.ts";

export const DEMO_DB = "demo";
export const DEMO_SPATIAL = "loan_approvals";
export const DEMO_TABULAR = "customer_churn";
export const DEMO_SERIES = "sensor_readings";

async function* asAsync<T>(it: Iterable<T>): AsyncGenerator<T> {
  yield* it;
}

/** What a store holds that seeding could overwrite: registered datasets and task documents. */
export async function storeContents(
  store: Store,
  tesseraDb: string,
): Promise<{ datasets: number; tasks: number }> {
  return {
    datasets: (await listDatasets(store, tesseraDb)).length,
    tasks: await store.count(taskDocumentsRef(tesseraDb)),
  };
}

/** True when the store holds no dataset and no task document yet. */
export async function isEmpty(store: Store, tesseraDb: string): Promise<boolean> {
  const { datasets, tasks } = await storeContents(store, tesseraDb);
  return datasets === 0 && tasks === 0;
}

/**
 * `deno task seed`: the demo data, but only into a store that holds nothing yet unless `force`; a store
 * with datasets or task documents is a ConflictError (seeding replaces the demo datasets, which makes their
 * runs stale, and resets the demo task's review state).
 */
export async function seedStore(
  store: Store,
  tesseraDb: string,
  opts: { force?: boolean } = {},
): Promise<Record<string, number>> {
  if (!opts.force) {
    const { datasets, tasks } = await storeContents(store, tesseraDb);
    if (datasets || tasks) {
      const n = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
      throw new ConflictError(
        `the store already holds data (${n(datasets, "dataset")}, ${n(tasks, "task document")}): seeding ` +
          "replaces the demo datasets (their runs and write-backs go stale) and resets the demo task",
      );
    }
  }
  return await seedDemo(store, tesseraDb);
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
      who: SEED_DECIDER,
      source: () => ({ via: "seed" }),
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
