/** The cleaning job handlers: the request's fields in as the services' typed input, jobs out as the API shows them. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./cleaning.routes.ts";
import { jobView } from "./cleaning.schemas.ts";
import * as jobs from "../../services/cleaning/jobs.ts";
import { deciderOf } from "../http/decider.ts";

export const run: AppRouteHandler<typeof routes.run> = async (c) => {
  const { date_col, ...body } = c.req.valid("json");
  const { sub, clientId } = c.var.principal;
  const job = await jobs.submitJob(c.var.deps, { ...body, dateCol: date_col ?? null }, {
    sub,
    clientId: clientId ?? null,
  });
  return c.json(jobView(job), 200);
};

export const approve: AppRouteHandler<typeof routes.approve> = async (c) => {
  const { job_id, approval_info } = c.req.valid("json");
  const job = await jobs.approve(c.var.deps, {
    jobId: job_id,
    approvalInfo: approval_info,
    who: deciderOf(c),
  });
  return c.json(jobView(job), 200);
};

export const newJobs: AppRouteHandler<typeof routes.newJobs> = async (c) =>
  c.json((await jobs.listNewJobs(c.var.deps)).map(jobView), 200);

export const job: AppRouteHandler<typeof routes.job> = async (c) => {
  const { job, results } = await jobs.getJobWithResults(
    c.var.deps,
    c.req.valid("param").job_id,
    c.req.valid("query").page,
  );
  return c.json({ ...jobView(job), results }, 200);
};

export const results: AppRouteHandler<typeof routes.results> = async (c) => {
  const page = await jobs.jobResults(c.var.deps, c.req.valid("param").job_id, c.req.valid("query").page);
  return c.json(page, 200);
};

export const undo: AppRouteHandler<typeof routes.undo> = async (c) =>
  c.json(await jobs.undo(c.var.deps, c.req.valid("param").job_id, deciderOf(c)), 200);
