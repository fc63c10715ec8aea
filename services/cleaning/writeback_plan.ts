/**
 * How an approved job is written back (its plan from `approval_info`) and the fields that plan writes: what
 * the write-back, its undo and the decision log all name the same way.
 */
import type { JobRecord } from "./job_queue.ts";

export interface WriteBackPlan {
  /** imputation: "same_fields" overwrites the gaps in place; "new_fields" writes `<column><suffix>`. */
  target: "same_fields" | "new_fields";
  suffix: string;
  /** detection: the boolean field set on every row, and an optional field for the score. */
  flagField: string;
  scoreField: string | null;
}

/** The field an imputed value of `column` goes to under this plan. */
export const targetField = (plan: WriteBackPlan, column: string) =>
  plan.target === "new_fields" ? `${column}${plan.suffix}` : column;

/** The fields a plan writes: the imputed columns' targets, or a detection's flag (and score). */
export const writtenFields = (job: JobRecord, plan: WriteBackPlan): string[] =>
  job.task === "impute"
    ? job.columns.map((c) => targetField(plan, c))
    : [plan.flagField, ...(plan.scoreField ? [plan.scoreField] : [])];
