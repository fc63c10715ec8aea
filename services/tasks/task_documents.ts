/**
 * Task configuration documents (spec 2 "Task documents"): one per dataset, keyed by its
 * `data_collection_name`, in Tessera's own database. The spatial audit and mitigation read and annotate
 * the same documents. Switched off by TASKS_ENABLED=false.
 */
import type { CollectionRef, Store } from "../../store/store.ts";
import { DuplicateIdError } from "../../store/store.ts";
import type { Config } from "../../config.ts";
import { ConflictError, DisabledError, NotFoundError } from "../../core/errors.ts";
import { type Decider, newEntry } from "../decisions/entry.ts";
import { decideOn } from "../decisions/outbox.ts";

/** What the task-document use cases need: the store, and the configuration naming Tessera's own database. */
export interface TaskDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB">;
}

/** A task document as stored and shown (without its store id); audits and mitigations add fields of their own. */
export interface TaskDocument {
  pipeline_name?: string | null;
  database_name: string;
  data_collection_name: string;
  status: string;
  component?: string | null;
  started_at?: string | null;
  ended_at?: string | null;
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

/** Which documents to list: those with this status and component (each optional). */
export interface TaskFilter {
  status?: string;
  component?: string;
}

/** Where the task documents are kept. */
export const taskDocumentsRef = (tesseraDb: string): CollectionRef => ({
  db: tesseraDb,
  collection: "tasks",
});

/** Refuses (503) every use of task documents on a deployment that switched them off. */
export function assertTasksEnabled(config: Pick<Config, "TASKS_ENABLED">): void {
  if (!config.TASKS_ENABLED) {
    throw new DisabledError("task documents are disabled on this deployment (TASKS_ENABLED=false)");
  }
}

const notFound = (name: string) => new NotFoundError(`no task document for collection '${name}'`);
/** A document as shown: without its store id and its decision outbox's bookkeeping. */
const shown = (doc: Record<string, unknown>) => {
  const { _id, decision_outbox: _o, decision_rev: _r, decision_pending: _p, ...rest } = doc;
  return rest as TaskDocument;
};

/** The documents matching `filter`, as stored. */
export async function listTaskDocuments(deps: TaskDeps, filter: TaskFilter): Promise<TaskDocument[]> {
  const match = {
    ...(filter.status !== undefined && { status: filter.status }),
    ...(filter.component !== undefined && { component: filter.component }),
  };
  return (await deps.store.list(taskDocumentsRef(deps.config.TESSERA_DB), match)).map(shown);
}

/**
 * Creates the document of a dataset: started now unless it says when, not ended. An insert, not a look
 * then a write: of two concurrent creates one wins, the other is a 409.
 */
export async function createTaskDocument(deps: TaskDeps, input: TaskDocument): Promise<TaskDocument> {
  const doc = { ended_at: null, ...input, started_at: input.started_at ?? new Date().toISOString() };
  try {
    await deps.store.insertMany(taskDocumentsRef(deps.config.TESSERA_DB), [{
      _id: input.data_collection_name,
      ...doc,
    }]);
  } catch (e) {
    if (!(e instanceof DuplicateIdError)) throw e;
    throw new ConflictError(`a task document for '${input.data_collection_name}' exists already`);
  }
  return doc;
}

/** The document of dataset `name`; a 404 without one. */
export async function getTaskDocument(deps: TaskDeps, name: string): Promise<TaskDocument> {
  const doc = await deps.store.get(taskDocumentsRef(deps.config.TESSERA_DB), name);
  if (!doc) throw notFound(name);
  return shown(doc);
}

/**
 * Sets a document's status; "done" also sets `ended_at` to now (UTC). A 404 without one. The change is a
 * decision: its log entry is written with it (services/decisions/outbox.ts), naming the status before.
 */
export async function setTaskStatus(
  deps: TaskDeps,
  name: string,
  status: string,
  who: Decider,
): Promise<TaskDocument> {
  const db = deps.config.TESSERA_DB;
  const doc = await decideOn(deps.store, db, taskDocumentsRef(db), name, {}, (task) => {
    const at = new Date().toISOString();
    const entry = newEntry("task_status", who, {
      task: name,
      dataset: name,
      database: typeof task.database_name === "string" ? task.database_name : null,
      facts: { status, previous_status: task.status ?? null },
    });
    return { set: status === "done" ? { status, ended_at: at } : { status }, entry };
  });
  if (!doc) throw notFound(name);
  return shown(doc);
}

/** Deletes the document of dataset `name` (the dataset itself stays); a 404 without one. */
export async function deleteTaskDocument(deps: TaskDeps, name: string): Promise<void> {
  if (!await deps.store.delete(taskDocumentsRef(deps.config.TESSERA_DB), name)) throw notFound(name);
}
