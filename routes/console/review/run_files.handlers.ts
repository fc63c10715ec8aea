/**
 * A run's maps, CSV files and report, served per run from the runs service (the JSON API's map route takes only a
 * bearer token; these take the console's session).
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { notFoundPage } from "../shared/error_pages.tsx";
import type { CsvFile } from "./hrefs.ts";
import { auditRegionsCsv, mitigationRegionsCsv, predictionsCsv, thresholdsCsv } from "./run_csv.ts";
import type { AuditView, MitigationView } from "./run_views.ts";
import { getRun, getRunMap } from "../../../services/spatial/runs.ts";
import { runReport } from "../../../services/spatial/run_report.ts";
import { REPORT_POLICY, reportHtml } from "../../spatial/run_report_page.tsx";
import { assertTasksEnabled } from "../../../services/tasks/task_documents.ts";

/**
 * One map of a run. An HTML map is a page of its own (Leaflet and the data inlined, with its own
 * policy): served sandboxed (scripts run, in an origin of their own, so it can reach nothing of the
 * console) and frameable only by the console's pages.
 */
export async function runMap(c: Context<ConsoleEnv>) {
  assertTasksEnabled(c.var.deps.config);
  const map = await getRunMap(
    c.var.deps,
    c.req.param("name") ?? "",
    c.req.param("run") ?? "",
    c.req.param("map") ?? "",
  );
  const cache = { "cache-control": "private, max-age=86400" }; // a run never changes
  if (map.format === "png") return c.body(map.bytes, 200, { "content-type": "image/png", ...cache });
  return c.body(map.text, 200, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": "sandbox allow-scripts; frame-ancestors 'self'",
    "x-frame-options": "SAMEORIGIN",
    ...cache,
  });
}

/**
 * A run's review report (routes/spatial/run_report_page.tsx), the page the JSON API's report route answers,
 * here behind the console's session. Its policy lets it load nothing: its style is inline, its images data.
 */
export async function runReportPage(c: Context<ConsoleEnv>) {
  assertTasksEnabled(c.var.deps.config);
  const report = await runReport(c.var.deps, c.req.param("name") ?? "", c.req.param("run") ?? "");
  return c.body(await reportHtml(report), 200, {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": REPORT_POLICY,
    "cache-control": "private, no-cache", // its decisions grow with each write-back
  });
}

export function runCsv(file: CsvFile) {
  return async (c: Context<ConsoleEnv>) => {
    const name = c.req.param("name") ?? "";
    assertTasksEnabled(c.var.deps.config);
    const { run_id, run, answer } = await getRun(c.var.deps, name, c.req.param("run") ?? "", false);
    const m = answer as unknown as MitigationView;
    let text: string | null = null;
    if (file === "regions") {
      text = run.kind === "audit" ? auditRegionsCsv(answer as unknown as AuditView) : mitigationRegionsCsv(m);
    } else if (file === "thresholds" && run.kind === "threshold") text = thresholdsCsv(m);
    else if (file === "predictions" && run.kind !== "audit") {
      text = predictionsCsv(answer.mitigated_preds as Parameters<typeof predictionsCsv>[0]);
    }
    if (text === null) return notFoundPage(c, `This ${run.kind} run has no ${file} to download.`);
    return c.body(text, 200, {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="${name}-${run.kind}-${run_id}-${file}.csv"`,
      "cache-control": "private, max-age=86400",
    });
  };
}
