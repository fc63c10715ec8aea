/** A run's write-backs, as the task document's history records them. */
import type { TaskDocument } from "../../../services/tasks/task_documents.ts";

/** The task's write-backs of one run, newest first, from the task document's history. */
export function writebacksOf(task: TaskDocument, runId: string) {
  const all = Array.isArray(task.writebacks) ? task.writebacks as Record<string, unknown>[] : [];
  return all.filter((w) => w.run_id === runId).reverse();
}
