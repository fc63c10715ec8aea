/**
 * Which collection a spatial task works on: the task document keyed by `data_collection_name` names
 * the database and collection its individuals live in. Every spatial audit, mitigation and write-back
 * starts here.
 */
import type { Config } from "../../config.ts";
import type { CollectionRef, Store } from "../../store/store.ts";
import { assertTasksEnabled, getTaskDocument, type TaskDocument } from "../tasks/task_documents.ts";

/** The collection a task's data lives in, with the task document itself. */
export type TaskCollection = CollectionRef & { task: TaskDocument };

/** Resolves a task to its collection (503 when tasks are off, 404 without its document). */
export async function taskCollection(
  deps: { store: Store; config: Config },
  collectionName: string,
): Promise<TaskCollection> {
  assertTasksEnabled(deps.config);
  const task = await getTaskDocument(deps, collectionName);
  return { db: String(task.database_name), collection: String(task.data_collection_name), task };
}
