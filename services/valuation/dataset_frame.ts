/**
 * A registered dataset read once (in a worker: services/datasets/column_reads.ts) into typed columns in shared
 * memory, for the valuation's workers.
 */
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import { NotFoundError } from "../../core/errors.ts";
import type { Frame } from "../../core/stats/frame.ts";
import { readFrame } from "../datasets/column_reads.ts";
import { findDataset, versionOf } from "../datasets/registry.ts";
import { type DatasetKey, keptOrBuilt, type PreparedDatasets, typedBytes } from "../datasets/prepared.ts";

/** What a valuation reads and runs on: the store, Tessera's own database, the worker pool. */
export interface ValuationDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB">;
  pool: WorkerPool;
  /** Prepared datasets kept between requests; absent: every request reads its frame. */
  prepared?: PreparedDatasets;
}

/** A dataset's frame, and the key its prepared parts are kept under (for what is derived from the frame). */
export interface LoadedFrame {
  frame: Frame;
  key: DatasetKey;
}

/**
 * Streams the dataset into a frame whose columns every worker reads without a copy, or takes the frame
 * kept with the prepared dataset (never changed by its readers); NotFoundError when unregistered.
 */
export async function loadDatasetFrame(
  { store, config, pool, prepared }: ValuationDeps,
  datasetId: string,
): Promise<LoadedFrame> {
  const rec = await findDataset(store, config.TESSERA_DB, datasetId);
  if (!rec) throw new NotFoundError(`no dataset '${datasetId}'`);
  const ref = { db: rec.database, collection: rec.collection };
  const key = { ref, version: versionOf(rec, ref).content };
  const frame = await keptOrBuilt(prepared, key, "frame", async () => {
    const frame = await readFrame(pool, store, ref);
    // categories and names: about 40 bytes a string beyond the typed columns
    return { value: frame, bytes: typedBytes(frame) + 40 * frame.rows };
  });
  return { frame, key };
}

/** A frame's `[rows, columns]`, the `dataset_shape` of both answers. */
export const shapeOf = (frame: Frame): [number, number] => [frame.rows, frame.columns.length];
