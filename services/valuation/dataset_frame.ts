/** A registered dataset read once into typed columns in shared memory, for the valuation's workers. */
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import { NotFoundError } from "../../core/errors.ts";
import { sharedAlloc } from "../../core/memory.ts";
import { type Frame, FrameBuilder } from "../../core/stats/frame.ts";
import { findDataset } from "../datasets/registry.ts";

/** What a valuation reads and runs on: the store, Tessera's own database, the worker pool. */
export interface ValuationDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB">;
  pool: WorkerPool;
}

/** Documents per batch read from the store. */
const BATCH = 5000;

/** Streams the dataset into a frame whose columns every worker reads without a copy; NotFoundError when unregistered. */
export async function loadDatasetFrame(
  { store, config }: Pick<ValuationDeps, "store" | "config">,
  datasetId: string,
): Promise<Frame> {
  const rec = await findDataset(store, config.TESSERA_DB, datasetId);
  if (!rec) throw new NotFoundError(`no dataset '${datasetId}'`);
  const builder = new FrameBuilder();
  for await (
    const batch of store.stream({ db: rec.database, collection: rec.collection }, { batchSize: BATCH })
  ) {
    builder.add(batch);
  }
  return builder.finish(sharedAlloc);
}

/** A frame's `[rows, columns]`, the `dataset_shape` of both answers. */
export const shapeOf = (frame: Frame): [number, number] => [frame.rows, frame.columns.length];
