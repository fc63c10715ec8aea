/**
 * What a review report shows (`GET .../runs/{run_id}/report`): the task and its dataset, the run as it
 * answered (its maps, without the line per individual), and the decisions taken on it that Tessera keeps:
 * the write-backs of the run's predictions, from the task document's history, with who and when.
 */
import { getTaskDocument } from "../tasks/task_documents.ts";
import type { RunDeps } from "./run_documents.ts";
import { getRun, type StoredRun } from "./runs.ts";

/** A write-back of the run, as the task document's history keeps it. */
export interface RunWriteback {
  field: string;
  at: string;
  by: string | null;
  matched: number;
  modified: number;
}

export interface RunReport {
  task: {
    name: string;
    databaseName: string;
    status: string | null;
    mapping: Record<string, unknown> | null;
  };
  run: StoredRun;
  writebacks: RunWriteback[];
  /** When the report was made. */
  madeAt: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The report of a task's kept run (a 404 naming an unknown task or run; a running one is a 409). */
export async function runReport(deps: RunDeps, taskName: string, runId: string): Promise<RunReport> {
  const task = await getTaskDocument(deps, taskName);
  const run = await getRun(deps, taskName, runId, true, false);
  const history = Array.isArray(task.writebacks) ? task.writebacks : [];
  const writebacks = history.filter((w): w is Record<string, unknown> => isRecord(w) && w.run_id === runId)
    .map((w) => ({
      field: String(w.field),
      at: String(w.at),
      by: typeof w.by === "string" ? w.by : null,
      matched: Number(w.matched ?? 0),
      modified: Number(w.modified ?? 0),
    }));
  return {
    task: {
      name: taskName,
      databaseName: String(task.database_name ?? ""),
      status: typeof task.status === "string" ? task.status : null,
      mapping: isRecord(task.mapping) ? task.mapping : null,
    },
    run,
    writebacks,
    madeAt: new Date().toISOString(),
  };
}
