/**
 * What a review report shows (`GET .../runs/{run_id}/report`): the task and its dataset, the run as it
 * answered (its maps, without the line per individual), and every decision taken on it, from the decision
 * log (services/decisions): the write-backs of its predictions and their undos, with who and when.
 */
import { getTaskDocument } from "../tasks/task_documents.ts";
import type { RunDeps } from "./run_documents.ts";
import { getRun, type StoredRun } from "./runs.ts";
import { type DecisionPage, listDecisions } from "../decisions/list.ts";

/** A decision on the run, as the log keeps it. */
export type RunDecision = DecisionPage["decisions"][number];

/** Decisions a report lists at most (a run is written back a few times, not hundreds). */
const MAX_DECISIONS = 500;

export interface RunReport {
  task: {
    name: string;
    databaseName: string;
    status: string | null;
    mapping: Record<string, unknown> | null;
  };
  run: StoredRun;
  decisions: RunDecision[];
  /** When the report was made. */
  madeAt: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The report of a task's kept run (a 404 naming an unknown task or run; a running one is a 409). */
export async function runReport(deps: RunDeps, taskName: string, runId: string): Promise<RunReport> {
  const task = await getTaskDocument(deps, taskName);
  const run = await getRun(deps, taskName, runId, true, false);
  const { decisions } = await listDecisions(deps, { task: taskName, run_id: runId, limit: MAX_DECISIONS });
  return {
    task: {
      name: taskName,
      databaseName: String(task.database_name ?? ""),
      status: typeof task.status === "string" ? task.status : null,
      mapping: isRecord(task.mapping) ? task.mapping : null,
    },
    run,
    decisions: decisions.toReversed(),
    madeAt: new Date().toISOString(),
  };
}
