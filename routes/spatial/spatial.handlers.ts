/** The spatial audit handlers: path and body in, the service's answer out. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./spatial.routes.ts";
import { toAuditSettings } from "./spatial.schemas.ts";
import { auditTask } from "../../services/spatial/audit.ts";
import { datasetColumns as columnsOf } from "../../services/spatial/dataset_columns.ts";
import { getRun, getRunMap, listRuns } from "../../services/spatial/runs.ts";
import { runReport as reportOf } from "../../services/spatial/run_report.ts";
import { REPORT_POLICY, reportHtml } from "./run_report_page.tsx";
import { cancelRun as cancel } from "../../services/spatial/live_runs.ts";
import { jsonAnswer } from "../http/json_answer.ts";

export const datasetColumns: AppRouteHandler<typeof routes.datasetColumns> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  return c.json(await columnsOf(c.var.deps, data_collection_name), 200);
};

export const audit: AppRouteHandler<typeof routes.audit> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  const body = c.req.valid("json");
  const input = { collectionName: data_collection_name, requestedBy: c.var.principal.sub, request: body };
  // maps of megabytes: written in pieces (json_answer.ts)
  return jsonAnswer(c, await auditTask(c.var.deps, { ...input, ...toAuditSettings(body) }));
};

export const runs: AppRouteHandler<typeof routes.runs> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  return c.json(await listRuns(c.var.deps, data_collection_name), 200);
};

export const run: AppRouteHandler<typeof routes.run> = async (c) => {
  const { data_collection_name, run_id } = c.req.valid("param");
  const includeMaps = c.req.valid("query").include_maps === "true";
  const { answer, run } = await getRun(c.var.deps, data_collection_name, run_id, includeMaps);
  // a mitigation's run holds a line per individual: written in pieces (json_answer.ts)
  return jsonAnswer(c, { run_id, ...answer, run });
};

export const runMap: AppRouteHandler<typeof routes.runMap> = async (c) => {
  const { data_collection_name, run_id, name } = c.req.valid("param");
  const map = await getRunMap(c.var.deps, data_collection_name, run_id, name);
  return map.format === "html"
    ? c.body(map.text, 200, { "content-type": "text/html; charset=utf-8" })
    : c.body(map.bytes, 200, { "content-type": "image/png" });
};

export const runReport: AppRouteHandler<typeof routes.runReport> = async (c) => {
  const { data_collection_name, run_id } = c.req.valid("param");
  const html = await reportHtml(await reportOf(c.var.deps, data_collection_name, run_id));
  return c.body(html, 200, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": REPORT_POLICY,
  });
};

export const cancelRun: AppRouteHandler<typeof routes.cancelRun> = async (c) => {
  const { data_collection_name, run_id } = c.req.valid("param");
  return c.json(await cancel(c.var.deps, data_collection_name, run_id, c.var.principal.sub), 200);
};
