/**
 * Cleaning jobs (spec 3): `POST /run/`, `POST /approve/`, `GET /get-new-jobs/`, and for the reviewer
 * `GET /jobs/{job_id}` and `GET /jobs/{job_id}/results`. Invalid parameters are 400 (this spec's status,
 * not the 422 of the others) with FastAPI-shaped items; every route is rate limited per client.
 */
import { createRoute, type RouteConfig, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../http/env.ts";
import { newRouter, securedRoute } from "../http/router.ts";
import { locRoot, onError, type ValidationItem } from "../http/errors.ts";
import { json } from "../http/schemas.ts";
import { requireAuth } from "../auth/require_auth.ts";
import { rateLimit } from "./rate_limit.ts";
import { detailOf, resolveRun, writeBackPlan } from "../../services/cleaning/validate_run.ts";
import {
  ApproveRequest,
  cleaningErrors,
  JobList,
  JobParams,
  jobView,
  JobWithResults,
  PageQuery,
  ResultsPage,
  RunRequest,
} from "./schemas.ts";
import { JobQueue, type JobRecord, writeBackStalled } from "../../services/cleaning/job_queue.ts";
import { readResultsPage } from "../../services/cleaning/job_results.ts";
import { approveJob } from "../../services/cleaning/approve.ts";
import { ConflictError, NotFoundError } from "../../core/errors.ts";

const BODY_KEYS: Record<string, string[]> = {
  "/run/": Object.keys(RunRequest.shape),
  "/approve/": Object.keys(ApproveRequest.shape),
};

/** A secured, rate-limited route of the cleaning group (the limiter runs after auth: it keys on the client). */
function cleaningRoute<R extends RouteConfig>(limiter: ReturnType<typeof rateLimit>, r: R) {
  const secured = securedRoute({
    ...r,
    tags: ["cleaning jobs"],
    responses: { ...r.responses, ...cleaningErrors },
  });
  return createRoute({ ...secured, middleware: [requireAuth, limiter] } as typeof secured);
}

const bad400 = (c: Context, detail: ValidationItem[]) => c.json({ detail }, 400);
const notFound = (id: string) => new NotFoundError(`no job '${id}'`);
const Detail = z.object({ detail: z.string() });

export function cleaningRoutes() {
  const app = newRouter();
  const limiter = rateLimit(); // one set of buckets per app
  // This spec answers invalid parameters with 400: the group's own hook and JSON-syntax errors say so.
  app.onError((err, c) => {
    if (err instanceof HTTPException && err.status === 400 && /malformed json/i.test(err.message)) {
      return bad400(c, [{ loc: ["body"], msg: "JSON decode error", type: "json_invalid" }]);
    }
    return onError(err, c);
  });
  const hook = (
    result: { success: boolean; error?: unknown; data?: unknown; target: string },
    c: Context,
  ) => {
    if (result.success) return;
    const root = locRoot(result.target);
    const allowed = BODY_KEYS[c.req.path] ?? [];
    return bad400(c, detailOf(result.error as never, [root], allowed, result.data));
  };
  const queueOf = (c: Context<AppEnv>) => new JobQueue(c.var.deps.store, c.var.deps.config.TESSERA_DB);
  const jobOr404 = async (c: Context<AppEnv>, id: string) =>
    (await queueOf(c).get(id)) ?? Promise.reject(notFound(id));
  const pageOr404 = async (c: Context<AppEnv>, job: JobRecord, page: number) => {
    const found = await readResultsPage(c.var.deps.store, c.var.deps.config.TESSERA_DB, job, page);
    if (!found) {
      throw new NotFoundError(
        `page ${page} does not exist: the results have ${job.results?.pages ?? 0} pages`,
      );
    }
    return { job_id: job.job_id, ...found };
  };

  app.openapi(
    cleaningRoute(limiter, {
      method: "post",
      path: "/run/",
      summary: "Run an imputation or anomaly-detection job (answers at once; the job runs in the background)",
      request: { body: { content: { "application/json": { schema: RunRequest } }, required: true } },
      responses: { 200: json(JobWithResults.omit({ results: true }), "The job record, queued") },
    }),
    async (c) => {
      const { store, config } = c.var.deps;
      const { problems, job } = await resolveRun(store, config.TESSERA_DB, c.req.valid("json"));
      if (!job) return bad400(c, problems);
      const p = c.var.principal;
      const created = await queueOf(c).create({ ...job, created_by: p.sub, client_id: p.clientId ?? null });
      return c.json(jobView(created), 200);
    },
    hook,
  );

  app.openapi(
    cleaningRoute(limiter, {
      method: "post",
      path: "/approve/",
      summary: "Approve a finished job; an approved job's results are written back into the dataset " +
        "(approving again resumes a write-back whose writer has been silent for JOB_LEASE_SECONDS)",
      request: { body: { content: { "application/json": { schema: ApproveRequest } }, required: true } },
      responses: {
        200: json(JobWithResults.omit({ results: true }), "The job with its approval and write-back report"),
        404: json(Detail, "No such job"),
        409: json(Detail, "Not finished, approved already, or its write-back still running"),
      },
    }),
    async (c) => {
      const { job_id, approval_info } = c.req.valid("json");
      const leaseMs = c.var.deps.config.JOB_LEASE_SECONDS * 1000;
      const job = await jobOr404(c, job_id);
      const resume = writeBackStalled(job, leaseMs, Date.now());
      // a resumed write-back follows the first approval's instructions (checked when it was given)
      const { problems, plan } = writeBackPlan(job, resume ? job.approval!.approval_info : approval_info);
      if (problems.length) return bad400(c, problems);
      const { sub, username } = c.var.principal;
      const who = { sub, username: username ?? null };
      const ended = await approveJob(queueOf(c), job, { info: approval_info, plan, resume, who, leaseMs });
      return c.json(jobView(ended), 200);
    },
    hook,
  );

  app.openapi(
    cleaningRoute(limiter, {
      method: "get",
      path: "/get-new-jobs/",
      summary: "Jobs running (or queued) with no results stored yet, oldest first",
      responses: { 200: json(JobList, "The jobs") },
    }),
    async (c) => c.json((await queueOf(c).listNew()).map(jobView), 200),
  );

  app.openapi(
    cleaningRoute(limiter, {
      method: "get",
      path: "/jobs/{job_id}",
      summary: "A job: status, progress, summary, error or approval, and one page of its results",
      request: { params: JobParams, query: PageQuery },
      responses: {
        200: json(JobWithResults, "The job"),
        404: json(Detail, "No such job, or a page past the last"),
      },
    }),
    async (c) => {
      const job = await jobOr404(c, c.req.valid("param").job_id);
      // a job without results yet shows none; past the last page is a 404, as on /jobs/{job_id}/results
      const page = job.results && await pageOr404(c, job, c.req.valid("query").page);
      return c.json({ ...jobView(job), results: page }, 200);
    },
    hook,
  );

  app.openapi(
    cleaningRoute(limiter, {
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
    }),
    async (c) => {
      const job = await jobOr404(c, c.req.valid("param").job_id);
      if (!job.results) {
        throw new ConflictError(
          `job '${job.job_id}' is ${job.status}: it has no results${job.status === "failed" ? "" : " yet"}`,
        );
      }
      return c.json(await pageOr404(c, job, c.req.valid("query").page), 200);
    },
    hook,
  );
  return app;
}
