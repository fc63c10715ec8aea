/** What a job's page shows: the job, a page of its results with the rows now, and the forms' states. */
import type { FormState } from "../../shared/components.tsx";
import type { ResultsPage } from "../../../../services/cleaning/jobs.ts";
import type { JobRecord } from "../../../../services/cleaning/job_queue.ts";
import type { ResultEntry } from "../../../../services/cleaning/job_results.ts";
import type { JobSeries } from "../../../../services/cleaning/review.ts";
import type { DatasetRecord } from "../../../../services/datasets/registry.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

export interface JobView {
  session: ConsoleSession;
  job: JobRecord;
  results: ResultsPage | null;
  /** The result entries the table shows: all of the page, or a detection's flagged ones. */
  shown: ResultEntry[];
  allRows: boolean;
  now: Map<string, Record<string, unknown>>;
  series: JobSeries | null;
  dataset: DatasetRecord | null;
  approve: FormState;
  reject: FormState;
  /** The "Undo approval" confirmation is asked for (`?confirm=undo`). */
  confirmUndo: boolean;
  notice?: { kind: "success" | "info" | "error"; text: string };
}
