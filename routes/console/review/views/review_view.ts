/** What the review page shows, and who asked for a run. */
import type { Child } from "hono/jsx";
import type { FormState } from "../../shared/components.tsx";
import type { RunListEntry } from "./runs_list.tsx";
import type { HistoryView } from "./task_history.tsx";
import type { Sort } from "../sort.ts";
import type { DatasetColumns } from "../../../../services/spatial/dataset_columns.ts";
import type { StoredRun } from "../../../../services/spatial/runs.ts";
import type { TaskDocument } from "../../../../services/tasks/task_documents.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

export interface PageNotice {
  kind: "info" | "success" | "error";
  text: Child;
}

export interface ReviewView {
  session: ConsoleSession;
  name: string;
  task: TaskDocument;
  columns: DatasetColumns;
  rows: number | null;
  runs: RunListEntry[];
  form: FormState;
  run?: StoredRun;
  sort: Sort;
  notices: PageNotice[];
  writeback: FormState;
  /** The path of this page (where "Mark done" comes back to). */
  here: string;
  /** The id of the next mitigation sent from this page, so that it can be cancelled (cancel_run.tsx). */
  nextRunId: string;
  /** A page of the task's decisions, with what is undone (task_history.tsx). */
  history: HistoryView;
}

/** Who asked for a run: the subject the services record, named as the signed-in person when it is them. */
export const who = (
  session: ConsoleSession,
  sub: string | null,
) => (sub === session.sub ? session.username : sub);
