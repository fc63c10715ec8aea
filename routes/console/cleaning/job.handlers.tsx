/**
 * A cleaning job's page, its progress (JSON, for the page's script) and the reviewer's decision: "Approve"
 * (the write-back, as `/approve/` does) or "Reject", and an approval's "Undo" (as `/approve/{id}/undo`).
 * Every step calls services/cleaning.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { errorsByField, type FormState, render } from "../shared/components.tsx";
import { formFields, pendingFormFor } from "../shared/session.ts";
import { JobPage } from "./views/job_page.tsx";
import type { JobView } from "./views/job_view.ts";
import { progressText } from "./views/job_parts.tsx";
import { approvalInfoOf } from "./approval_form.ts";
import { jobHref } from "./hrefs.ts";
import * as jobs from "../../../services/cleaning/jobs.ts";
import { currentRows, jobSeries } from "../../../services/cleaning/review.ts";
import { findDataset } from "../../../services/datasets/registry.ts";
import { ConflictError, InvalidInputsError } from "../../../core/errors.ts";
import { problemItems } from "../../http/error_answers.ts";

const pageOf = (c: Context<ConsoleEnv>) => {
  const p = Number(c.req.query("page") ?? "1");
  return Number.isInteger(p) && p >= 1 ? p : 1;
};

async function showJob(
  c: Context<ConsoleEnv>,
  state: { approve?: FormState; reject?: FormState; notice?: JobView["notice"] } = {},
  status: 200 | 409 | 422 = 200,
) {
  const deps = c.var.deps;
  const id = c.req.param("id") ?? "";
  const { job, results } = await jobs.getJobWithResults(deps, id, pageOf(c));
  // a detection shows its flagged rows unless every row is asked for (`rows=all`)
  const allRows = job.task === "impute" || c.req.query("rows") === "all";
  const shown = (results?.items ?? []).filter((e) => allRows || e.label === 1);
  const [now, series, dataset] = await Promise.all([
    currentRows(deps, job, shown.map((e) => String(e._id))),
    jobSeries(deps, job),
    findDataset(deps.store, deps.config.TESSERA_DB, job.data),
  ]);
  const view: JobView = {
    session: c.var.session,
    job,
    results,
    shown,
    allRows,
    now,
    series,
    dataset,
    approve: state.approve ?? {},
    reject: state.reject ?? {},
    confirmUndo: c.req.query("confirm") === "undo",
    notice: state.notice,
  };
  return render(c, <JobPage {...view} />, status);
}

export async function jobPage(c: Context<ConsoleEnv>) {
  const id = c.req.param("id") ?? "";
  const pending = await pendingFormFor(c, `${jobHref(id)}/approve`);
  if (pending) {
    const { _csrf: _, ...values } = pending;
    return await showJob(c, {
      approve: { values },
      notice: {
        kind: "info",
        text: "Your session had expired before the approval was sent, so nothing was approved. " +
          "Check the values below and approve again.",
      },
    });
  }
  const notice = c.req.query("approved")
    ? { kind: "success" as const, text: "Approved: the results are written into the dataset." }
    : c.req.query("rejected")
    ? { kind: "info" as const, text: "Rejected: the results will not be written into the dataset." }
    : c.req.query("undone")
    ? { kind: "success" as const, text: await undoneText(c) }
    : undefined;
  return await showJob(c, { notice });
}

/** A running job's status and progress, for the page's script (JSON; the page itself works without it). */
export async function jobProgress(c: Context<ConsoleEnv>) {
  const job = await jobs.getJob(c.var.deps, c.req.param("id") ?? "");
  c.header("Cache-Control", "no-store");
  return c.json({ status: job.status, progress: job.progress, text: progressText(job) });
}

export async function approveJob(c: Context<ConsoleEnv>) {
  const { _csrf: _, ...values } = await formFields(c);
  const id = c.req.param("id") ?? "";
  const job = await jobs.getJob(c.var.deps, id);
  try {
    await jobs.approve(c.var.deps, {
      jobId: id,
      approvalInfo: approvalInfoOf(job, values),
      who: { sub: c.var.session.sub, username: c.var.session.username },
    });
  } catch (e) {
    if (e instanceof InvalidInputsError) {
      const errors = errorsByField(problemItems(e.problems).map((d) => ({ ...d, loc: d.loc.slice(1) })));
      return showJob(c, { approve: { values, errors } }, 422);
    }
    if (e instanceof ConflictError) {
      return showJob(c, { approve: { values }, notice: { kind: "error", text: e.message } }, 409);
    }
    throw e;
  }
  return c.redirect(`${jobHref(id)}?approved=1`, 303);
}

export async function rejectJob(c: Context<ConsoleEnv>) {
  const { _csrf: _, ...values } = await formFields(c);
  const id = c.req.param("id") ?? "";
  try {
    await jobs.reject(c.var.deps, {
      jobId: id,
      reason: values.reason ?? null,
      who: { sub: c.var.session.sub, username: c.var.session.username },
    });
  } catch (e) {
    if (!(e instanceof ConflictError)) throw e;
    return showJob(c, { reject: { values }, notice: { kind: "error", text: e.message } }, 409);
  }
  return c.redirect(`${jobHref(id)}?rejected=1`, 303);
}

/** What the last undo did, for the notice after it (the job's history keeps it). */
async function undoneText(c: Context<ConsoleEnv>): Promise<string> {
  const job = await jobs.getJob(c.var.deps, c.req.param("id") ?? "");
  const u = job.undone_approvals?.at(-1)?.undo ?? {};
  const skipped = Array.isArray(u.skipped) ? u.skipped.length : 0;
  const kept = Array.isArray(u.fields_not_restored) && u.fields_not_restored.length
    ? ` Left as written (their earlier values were not kept): ${u.fields_not_restored.join(", ")}.`
    : "";
  return `Approval undone: ${u.restored ?? 0} cells restored, ${skipped} documents changed since left as ` +
    `they are. The job can be approved again.${kept}`;
}

export async function undoJob(c: Context<ConsoleEnv>) {
  const id = c.req.param("id") ?? "";
  try {
    await jobs.undo(c.var.deps, id, { sub: c.var.session.sub, username: c.var.session.username });
  } catch (e) {
    if (!(e instanceof ConflictError)) throw e;
    return showJob(c, { notice: { kind: "error", text: e.message } }, 409);
  }
  return c.redirect(`${jobHref(id)}?undone=1`, 303);
}
