/**
 * The cleaning page: the jobs (new, running, done) and the form that starts one (dataset, a method of the
 * catalogue, columns, parameters with their defaults), through services/cleaning as `/run/` does.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { render } from "../shared/components.tsx";
import { pendingFormFor } from "../shared/session.ts";
import { CleaningPage, type ListView } from "./views/cleaning_page.tsx";
import { methodOfKey } from "./cleaning_params.ts";
import { type Chosen, readStartForm, startErrors, type StartState } from "./start_request.ts";
import { CLEANING, jobHref } from "./hrefs.ts";
import * as jobs from "../../../services/cleaning/jobs.ts";
import { listDatasets } from "../../../services/datasets/registry.ts";
import { InvalidInputsError } from "../../../core/errors.ts";

async function showCleaning(
  c: Context<ConsoleEnv>,
  start: StartState,
  chosen: Chosen,
  status: 200 | 400 | 409 | 422 = 200,
  notice?: ListView["notice"],
) {
  const deps = c.var.deps;
  const [list, datasets] = await Promise.all([
    jobs.listJobs(deps),
    listDatasets(deps.store, deps.config.TESSERA_DB),
  ]);
  const dataset = chosen.data ? datasets.find((d) => d.dataset_name === chosen.data) ?? null : null;
  const spec = methodOfKey(chosen.method);
  const errors = { ...start.errors };
  if (chosen.data && !dataset) errors.data = `There is no dataset '${chosen.data}'.`;
  const view: ListView = {
    session: c.var.session,
    jobs: list,
    datasets,
    chosen,
    dataset,
    spec,
    start: { ...start, errors },
    runnerOff: !deps.config.JOBS_ENABLED,
    notice,
  };
  return render(c, <CleaningPage {...view} />, status);
}

export async function cleaningPage(c: Context<ConsoleEnv>) {
  const pending = await pendingFormFor(c, CLEANING);
  if (pending) {
    return showCleaning(c, { values: pending }, { data: pending.data, method: pending.using }, 200, {
      kind: "info",
      text: "Your session had expired before the job was started, so nothing was started. " +
        "Check the columns and parameters and start it again.",
    });
  }
  return showCleaning(c, {}, {
    data: c.req.query("data") || undefined,
    method: c.req.query("using") || undefined,
  });
}

export async function startJob(c: Context<ConsoleEnv>) {
  const start = await readStartForm(c);
  if (!start.ok) return showCleaning(c, start.state, start.chosen, 422);
  const { spec, state, chosen } = start;
  try {
    const job = await jobs.submitJob(c.var.deps, {
      data: chosen.data ?? "",
      task: spec.task,
      dtype: spec.dtype,
      method: spec.name,
      dateCol: spec.dtype === "timeseries" ? start.dateCol || null : null,
      params: start.params,
    }, { sub: c.var.session.sub, clientId: null });
    return c.redirect(jobHref(job.job_id), 303);
  } catch (e) {
    if (!(e instanceof InvalidInputsError)) throw e;
    return showCleaning(c, { ...state, errors: startErrors(e, state.columns ?? []) }, chosen, 422);
  }
}
