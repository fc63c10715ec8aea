/**
 * The run a write-back by `run_id` writes (services/mitigation/writeback.ts): one of the task's, with
 * predictions, computed on the rows the collection still holds.
 */
import { ConflictError } from "../../core/errors.ts";
import type { Mapping } from "../../core/spatial/mapping.ts";
import { datasetGeneration } from "../datasets/registry.ts";
import type { RunDeps, RunHeader } from "./run_documents.ts";
import { findRun, noRun } from "./runs.ts";
import type { TaskCollection } from "./task_collection.ts";

/** A run whose predictions may be written into the task's collection, with its predictions' count. */
export interface WritableRun {
  header: RunHeader;
  count: number;
}

/**
 * The run a write-back by `run_id` writes: 404 when unknown; 409 naming why when it belongs to another
 * task or collection, has no predictions (an audit), or was computed on rows that were imported,
 * replaced or appended to since (the dataset's generation changed).
 */
export async function runForWriteback(
  deps: RunDeps,
  ref: TaskCollection,
  task: string,
  runId: string,
): Promise<WritableRun> {
  const h = await findRun(deps, runId);
  if (!h) throw noRun(runId, task);
  const where = (db: string, coll: string) => `collection '${coll}' of database '${db}'`;
  if (h.task !== task) {
    throw new ConflictError(
      `run '${runId}' belongs to task '${h.task}' (${where(h.database, h.collection)}), not to '${task}'`,
    );
  }
  if (h.database !== ref.db || h.collection !== ref.collection) {
    throw new ConflictError(
      `run '${runId}' was computed on ${where(h.database, h.collection)}; the task now names ` +
        where(ref.db, ref.collection),
    );
  }
  if (!h.layout.preds) {
    throw new ConflictError(`run '${runId}' is an ${h.kind}: it has no predictions to write`);
  }
  const now = await datasetGeneration(deps.store, deps.config.TESSERA_DB, ref);
  if (now !== h.generation) {
    throw new ConflictError(
      `the rows of ${where(ref.db, ref.collection)} were imported again, replaced or appended to ` +
        `since run '${runId}' was computed (${h.created_at}): its predictions may not match them; run the ` +
        `mitigation again`,
    );
  }
  return { header: h, count: h.layout.preds.count };
}

/** The mapping a run read, whose fields a write-back of it must not overwrite. */
export const runMapping = (run: WritableRun): Mapping => run.header.mapping;
