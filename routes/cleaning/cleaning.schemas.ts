/** Request and response shapes of the cleaning job routes (spec 3), and the job as the API shows it. */
import { z } from "@hono/zod-openapi";
import { DTYPES, JOB_TASKS, METHODS } from "../../core/cleaning/methods.ts";
import type { JobRecord } from "../../services/cleaning/job_queue.ts";
import { depthNote, Detail, json, shallowJson } from "../http/schemas.ts";
import { MAX_JSON_DEPTH } from "../../core/json_depth.ts";

const methodList = [...new Set(METHODS.map((m) => m.name))].join(", ");

/**
 * The rules of a run request that the service checks with its own messages (services/cleaning/
 * validate_run.ts), stated in the OpenAPI document too: per task and dtype the methods there are and
 * whether date_col is given (timeseries) or not (tabular); per method its parameters (core/cleaning/
 * methods.ts). What needs the dataset (that it exists, its columns, their types) cannot be said here.
 */
function runRules(): Record<string, unknown>[] {
  const is = (task: string, dtype: string, method?: string) => ({
    properties: {
      task: { const: task },
      dtype: { const: dtype },
      ...(method === undefined ? {} : { method: { const: method } }),
    },
    required: ["task", "dtype", ...(method === undefined ? [] : ["method"])],
  });
  const byKind = JOB_TASKS.flatMap((task) =>
    DTYPES.map((dtype) => ({
      if: is(task, dtype),
      then: dtype === "timeseries"
        ? {
          properties: {
            method: { enum: METHODS.filter((m) => m.task === task && m.dtype === dtype).map((m) => m.name) },
            date_col: { type: "string", minLength: 1 },
          },
          required: ["date_col"],
        }
        : {
          properties: {
            method: { enum: METHODS.filter((m) => m.task === task && m.dtype === dtype).map((m) => m.name) },
            date_col: { type: "null" },
          },
        },
    }))
  );
  const byMethod = METHODS.map((m) => {
    const { $schema: _, ...params } = z.toJSONSchema(m.params, { io: "input" }) as Record<string, unknown>;
    // threshold needs a bound: low, high or both (so params too, whose default {} has none)
    const bound = m.task === "detect" && m.name === "threshold";
    return {
      if: is(m.task, m.dtype, m.name),
      then: bound
        ? {
          properties: { params: { ...params, anyOf: [{ required: ["low"] }, { required: ["high"] }] } },
          required: ["params"],
        }
        : { properties: { params } },
    };
  });
  return [...byKind, ...byMethod];
}

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
  params: shallowJson(z.record(z.string(), z.unknown())).default({}).openapi({
    description:
      "The method's parameters (names as in scikit-learn, PyOD, pandas, ADTK); every method also " +
      `takes \`columns\`. Unknown names are refused. ${depthNote()}`,
    example: { columns: ["temperature"] },
  }),
}).strict().openapi("RunRequest", { allOf: runRules() } as Record<string, unknown>);

/** A field a write-back creates: an identifier, never `_id`. */
const WRITTEN_FIELD = "^(?!_id$)[A-Za-z_][A-Za-z0-9_]*$";

export const ApproveRequest = z.object({
  job_id: z.string().min(1),
  // the job keeps it one level down, in its `approval`, whose depth counts from there
  approval_info: shallowJson(z.record(z.string(), z.unknown()), MAX_JSON_DEPTH - 1).default({}).openapi({
    description: "Free key-values, kept with the approval. Tessera reads: write_back (bool, default true); " +
      "for imputations target ('same_fields' | 'new_fields') and suffix (default '_imputed'); for " +
      "detections flag_field (default 'is_anomaly') and score_field (none by default). " +
      `${depthNote(MAX_JSON_DEPTH - 1)} (The job keeps it inside its approval, whose fields nest at most ` +
      `${MAX_JSON_DEPTH}.)`,
    example: { comment: "checked the top 20", target: "same_fields" },
    // the keys Tessera reads, as services/cleaning/validate_run.ts checks them (null: the default)
    properties: {
      write_back: { type: ["boolean", "null"] },
      target: { enum: ["same_fields", "new_fields", null] },
      suffix: { type: ["string", "null"], pattern: "^[A-Za-z0-9_]*$" },
      flag_field: { type: ["string", "null"], pattern: WRITTEN_FIELD },
      score_field: { type: ["string", "null"], pattern: WRITTEN_FIELD },
    },
  }),
}).strict().openapi("ApproveRequest");

const Job = z.object({
  job_id: z.string(),
  status: z.enum(["queued", "running", "succeeded", "failed", "rejected"]).openapi({
    description: "rejected: a reviewer refused the results of a succeeded job in the review console; " +
      "they are never written back",
  }),
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
  undone_approvals: z.array(z.record(z.string(), z.unknown())).openapi({
    description: "Approvals taken back (`POST /approve/{job_id}/undo`), oldest first, each with its `undo`",
  }),
  rejection: z.object({
    rejected_by: z.string(),
    rejected_by_username: z.string().nullable(),
    rejected_at: z.string(),
    reason: z.string().nullable(),
  }).nullable().openapi({
    description: "who rejected the job's results, when and why; null unless rejected",
  }),
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

export const UndoAnswer = z.object({
  job_id: z.string(),
  restored: z.number().int().openapi({
    description: "Cells (a detection: rows) holding again what they held before the write-back",
  }),
  skipped: z.array(z.string()).openapi({
    description: "Documents left as they are: a cell no longer holds what the write-back wrote " +
      "(changed since, or left alone by the write-back because it had changed after the job ran)",
  }),
  missing: z.number().int().openapi({ description: "Documents the write-back wrote that are gone" }),
  fields_not_restored: z.array(z.string()).openapi({
    description: "Fields the write-back overwrote that existed before it: their earlier values were not " +
      "kept, so they stay as written",
  }),
  undone_at: z.string(),
  undone_by: z.string(),
  undone_by_username: z.string().nullable(),
}).openapi("CleaningUndo");

export const JobParams = z.object({ job_id: z.string().min(1).max(200) });
export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).default(1),
});

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
    undone_approvals: (j.undone_approvals ?? []) as unknown as Record<string, unknown>[],
    rejection: j.rejection ?? null,
  };
}

const Detail400 = z.object({
  detail: z.array(
    z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }),
  ),
}).openapi("CleaningValidationError");
const AnyDetail = z.object({ detail: z.unknown() });
export { Detail };

/** The answers every cleaning route may give besides its own 200. */
export const cleaningErrors = {
  400: json(Detail400, "Invalid parameters: each item names the field (loc) and says what is allowed"),
  401: json(AnyDetail, "Missing or invalid bearer token"),
  403: json(AnyDetail, "The caller's role is below the one the route needs"),
  429: json(AnyDetail, "Rate limit exceeded; Retry-After says when to try again"),
  500: json(AnyDetail, "Server error (the body carries the request id, never a stack trace)"),
};
