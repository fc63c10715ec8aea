/** Request and response shapes of the cleaning job routes (spec 3), and the job as the API shows it. */
import { z } from "@hono/zod-openapi";
import { DTYPES, JOB_TASKS, METHODS } from "../../core/cleaning/methods.ts";
import type { JobRecord } from "../../services/cleaning/job_queue.ts";
import { json } from "../http/schemas.ts";

const methodList = [...new Set(METHODS.map((m) => m.name))].join(", ");

export const RunRequest = z.object({
  data: z.string().min(1).openapi({
    description: "The dataset id (its collection name)",
    example: "sensor_readings",
  }),
  task: z.enum(JOB_TASKS),
  dtype: z.enum(DTYPES),
  method: z.string().min(1).openapi({
    description: `One of the methods for task and dtype: ${methodList}`,
  }),
  date_col: z.string().min(1).nullable().optional().openapi({
    description: "The datetime column; time series only",
  }),
  params: z.record(z.string(), z.unknown()).default({}).openapi({
    description:
      "The method's parameters (names as in scikit-learn, PyOD, pandas, ADTK); every method also " +
      "takes `columns`. Unknown names are refused.",
    example: { columns: ["temperature"] },
  }),
}).strict().openapi("RunRequest");

export const ApproveRequest = z.object({
  job_id: z.string().min(1),
  approval_info: z.record(z.string(), z.unknown()).default({}).openapi({
    description: "Free key-values, kept with the approval. Tessera reads: write_back (bool, default true); " +
      "for imputations target ('same_fields' | 'new_fields') and suffix (default '_imputed'); for " +
      "detections flag_field (default 'is_anomaly') and score_field (none by default).",
    example: { comment: "checked the top 20", target: "same_fields" },
  }),
}).strict().openapi("ApproveRequest");

const Job = z.object({
  job_id: z.string(),
  status: z.enum(["queued", "running", "succeeded", "failed"]),
  progress: z.number(),
  task: z.string(),
  dtype: z.string(),
  method: z.string(),
  params: z.record(z.string(), z.unknown()),
  data: z.string(),
  date_col: z.string().nullable(),
  columns: z.array(z.string()),
  created_at: z.string(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  created_by: z.string(),
  attempt: z.number().int(),
  summary: z.record(z.string(), z.unknown()).nullable(),
  error: z.object({ type: z.string(), message: z.string() }).nullable(),
  approval: z.record(z.string(), z.unknown()).nullable(),
}).openapi("Job");

export const ResultsPage = z.object({
  job_id: z.string(),
  page: z.number().int(),
  pages: z.number().int(),
  total: z.number().int(),
  items: z.array(z.record(z.string(), z.unknown())),
}).openapi("JobResultsPage");

export const JobWithResults = Job.extend({ results: ResultsPage.nullable() }).openapi("JobWithResults");
export const JobList = z.array(Job);
export type JobView = z.infer<typeof Job>;

export const JobParams = z.object({ job_id: z.string().min(1).max(200) });
export const PageQuery = z.object({ page: z.coerce.number().int().min(1).default(1) });

/** What the API shows of a job record: no lease internals, no store ids. */
export function jobView(j: JobRecord): JobView {
  return {
    job_id: j.job_id,
    status: j.status,
    progress: j.progress,
    task: j.task,
    dtype: j.dtype,
    method: j.method,
    params: j.params,
    data: j.data,
    date_col: j.date_col,
    columns: j.columns,
    created_at: j.created_at,
    started_at: j.started_at,
    ended_at: j.ended_at,
    created_by: j.created_by,
    attempt: j.attempt,
    summary: j.summary,
    error: j.error,
    approval: j.approval as unknown as Record<string, unknown> | null,
  };
}

const Detail400 = z.object({
  detail: z.array(
    z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }),
  ),
}).openapi("CleaningValidationError");
const AnyDetail = z.object({ detail: z.unknown() });
export const Detail = z.object({ detail: z.string() });

/** The answers every cleaning route may give besides its own 200. */
export const cleaningErrors = {
  400: json(Detail400, "Invalid parameters: each item names the field (loc) and says what is allowed"),
  401: json(AnyDetail, "Missing or invalid bearer token"),
  429: json(AnyDetail, "Rate limit exceeded; Retry-After says when to try again"),
  500: json(AnyDetail, "Server error (the body carries the request id, never a stack trace)"),
};
