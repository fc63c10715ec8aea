/**
 * A task's decisions as its page reads them from the log (services/decisions/list.ts): a page of its
 * history, the undo of each write-back undone (whatever page it is on), and one write-back's entry.
 */
import type { HistoryEntry } from "../shared/decision_history.tsx";
import { HISTORY_PAGE } from "../shared/history_query.ts";
import { type DecisionPage, listDecisions } from "../../../services/decisions/list.ts";

type Deps = Parameters<typeof listDecisions>[0];

/** Every entry of a kind: the log is read whole anyway, and a task's write-backs are few. */
const ALL = Number.MAX_SAFE_INTEGER;

/** Skipped document ids the notice after an undo names (the total is counted). */
export const SKIPPED_SHOWN = 5;

/** A page of a task's history, and the undo of every write-back of the task that was undone. */
export interface TaskHistory {
  page: DecisionPage;
  /** The entry id the page starts before (an older page), if any. */
  before?: string;
  /** The `writeback_undo` entry of each undone write-back, by `writeback_id`. */
  undone: Map<string, HistoryEntry>;
}

/** The undo entries of the task's write-backs, by `writeback_id`. */
async function undoneWritebacks(deps: Deps, task: string): Promise<Map<string, HistoryEntry>> {
  const undos = await listDecisions(deps, { task, kind: "writeback_undo", limit: ALL });
  return new Map(undos.decisions.filter((e) => e.writeback_id !== null).map((e) => [e.writeback_id!, e]));
}

/** The task's decisions newest first (HISTORY_PAGE of them, older than `before`), with what is undone. */
export async function taskHistory(deps: Deps, task: string, before?: string): Promise<TaskHistory> {
  const page = await listDecisions(deps, { task, limit: HISTORY_PAGE, before });
  return { page, before, undone: await undoneWritebacks(deps, task) };
}

/** The log's entry of the task's write-back `id` and its undo's (null: not undone); null when not logged. */
export async function writebackDecision(
  deps: Deps,
  task: string,
  id: string,
): Promise<{ entry: HistoryEntry; undo: HistoryEntry | null } | null> {
  const written = await listDecisions(deps, { task, kind: "writeback", limit: ALL });
  const entry = written.decisions.find((e) => e.writeback_id === id);
  if (!entry) return null;
  return { entry, undo: (await undoneWritebacks(deps, task)).get(id) ?? null };
}
