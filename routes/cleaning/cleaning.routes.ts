/**
 * Cleaning jobs (spec 3): `POST /run/`, `POST /approve/`, `GET /get-new-jobs/`, and for the reviewer
 * `GET /jobs/{job_id}`, `GET /jobs/{job_id}/results` and `POST /approve/{job_id}/undo` (issue 37). Invalid parameters are 400 (this spec's status,
 * not the 422 of the others) with FastAPI-shaped items; every route is rate limited per client (the
 * limiter is the app's own: cleaning.index.ts adds it after authentication).
 */
import type { RouteConfig } from "@hono/zod-openapi";
import { securedRoute } from "../http/router.ts";
import type { Role } from "../../core/auth/roles.ts";
import { json } from "../http/schemas.ts";
import {
  ApproveRequest,
  cleaningErrors,
  Detail,
  JobList,
  JobParams,
  JobWithResults,
  PageQuery,
  ResultsPage,
  RunRequest,
  UndoAnswer,
} from "./cleaning.schemas.ts";

/** A secured route of the cleaning group, with the answers every one of them may give. */
const cleaningRoute = <R extends RouteConfig & { role: Role }>(r: R) =>
  securedRoute({ ...r, tags: ["cleaning jobs"], responses: { ...r.responses, ...cleaningErrors } });

export const run = cleaningRoute({
  role: "reviewer",
  method: "post",
  path: "/run/",
  summary: "Run an imputation or anomaly-detection job (answers at once; the job runs in the background)",
  request: { body: { content: { "application/json": { schema: RunRequest } }, required: true } },
  responses: {
    200: json(JobWithResults.omit({ results: true }), "The job record, queued"),
    404: json(
      Detail,
      "No dataset `data` names, or no column `date_col` or `params.columns` names (each item names its field)",
    ),
    409: json(
      Detail,
      "The dataset's columns do not fit the method: not numbers, not dates, none it can use (each item names its field)",
    ),
  },
});

export const approve = cleaningRoute({
  role: "steward",
  method: "post",
  path: "/approve/",
  summary: "Approve a finished job; an approved job's results are written back into the dataset " +
    "(approving again resumes a write-back whose writer has been silent for JOB_LEASE_SECONDS)",
  request: { body: { content: { "application/json": { schema: ApproveRequest } }, required: true } },
  responses: {
    200: json(JobWithResults.omit({ results: true }), "The job with its approval and write-back report"),
    404: json(Detail, "No such job"),
    409: json(
      Detail,
      "Not finished (or rejected), approved already, or its write-back still running or taken over by a " +
        "later approval; or the job's columns do not fit `approval_info` (a flag_field or score_field " +
        "naming a column the job read, a suffix making a field name Tessera does not write): each item " +
        "names its field",
    ),
  },
});

export const newJobs = cleaningRoute({
  role: "viewer",
  method: "get",
  path: "/get-new-jobs/",
  summary: "Jobs running (or queued) with no results stored yet, oldest first",
  responses: { 200: json(JobList, "The jobs") },
});

export const job = cleaningRoute({
  role: "viewer",
  method: "get",
  path: "/jobs/{job_id}",
  summary: "A job: status, progress, summary, error or approval, and one page of its results",
  request: { params: JobParams, query: PageQuery },
  responses: {
    200: json(JobWithResults, "The job"),
    404: json(Detail, "No such job, or a page past the last"),
  },
});

export const results = cleaningRoute({
  role: "viewer",
  method: "get",
  path: "/jobs/{job_id}/results",
  summary:
    "One page of a finished job's results (imputed cells, or rows with label and score, most anomalous first)",
  request: { params: JobParams, query: PageQuery },
  responses: {
    200: json(ResultsPage, "The page"),
    404: json(Detail, "No such job or page"),
    409: json(Detail, "The job has no results yet"),
  },
});

export const undo = cleaningRoute({
  role: "steward",
  method: "post",
  path: "/approve/{job_id}/undo",
  summary: "Undo a job's approval: every cell its write-back wrote gets back what it held before, " +
    "unless changed since (skipped, listed); the job may then be approved again. Asked again, the same " +
    "answer; an undo whose writer has been silent for JOB_LEASE_SECONDS is resumed",
  request: { params: JobParams },
  responses: {
    200: json(UndoAnswer, "What the undo restored and skipped, who undid the approval and when"),
    404: json(Detail, "No such job"),
    409: json(
      Detail,
      "The job is not approved (never, or rejected), its write-back is still running, or an undo of it " +
        "is running (the detail says from when undoing again resumes it)",
    ),
  },
});
