/**
 * The callers' side of a dataset read (the audit's columns, the valuation's frame): in a worker, which
 * opens the store for itself (workers/tasks/dataset.ts), so the event loop decodes no row; where the pool
 * runs inline or the store cannot be opened twice (an in-memory or the platform's KV), the same read runs
 * on the caller's store instead, with the same answer.
 */
import type { WorkerPool } from "../../workers/pool.ts";
import { columnsFrom, type ColumnsRead, frameFrom } from "../../workers/tasks/dataset.ts";
import type { LoadedColumns } from "../../core/spatial/loaded_columns.ts";
import type { Frame } from "../../core/stats/frame.ts";
import type { CollectionRef, Store } from "../../store/store.ts";

/** Whether `pool` can read from `store` in a worker: it has workers, and the store can be opened again. */
const inWorker = (pool: WorkerPool, store: Store) => !pool.inline && store.location !== null;

/** The audit's columns of `read.ref`, read in a worker when one can open the store. */
export async function readColumns(pool: WorkerPool, store: Store, read: ColumnsRead): Promise<LoadedColumns> {
  if (!inWorker(pool, store)) return await columnsFrom(store, read);
  return await pool.run("dataset.columns", { ...read, location: store.location! });
}

/** Every column of `ref` as a frame in shared memory, read in a worker when one can open the store. */
export async function readFrame(pool: WorkerPool, store: Store, ref: CollectionRef): Promise<Frame> {
  if (!inWorker(pool, store)) return await frameFrom(store, ref);
  return await pool.run("dataset.frame", { location: store.location!, ref });
}
