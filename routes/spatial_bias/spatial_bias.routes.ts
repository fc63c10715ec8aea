/**
 * The reference toolkit's stateless routes (issue 39): the individuals are in the request, the answers in
 * the toolkit's shapes. Their bodies are documented here and read by the handlers (a worker parses them:
 * spatial_bias.index.ts registers the definitions for /openapi.json as they are).
 */
import { securedRoute } from "../http/router.ts";
import { detailResponse, errorResponses, json, jsonBody } from "../http/schemas.ts";
import {
  AuditRequest,
  KeepQuery,
  RelabelRequest,
  ThresholdRequest,
  ToolkitAuditAnswer,
  ToolkitRelabelAnswer,
  ToolkitThresholdAnswer,
} from "./spatial_bias.schemas.ts";

const SAME = "The same computation as a stored task's (`/api/spatial-hitl/task/...`), over the request's " +
  "individuals in their order: a region's `idx` is its position in the sorted list of region ids, an " +
  "individual's `idx` its position in its list. Monte Carlo worlds with the stored routes' defaults (seed " +
  "42, rng fast). Nothing is stored unless keep=true. The body may be as large as BODY_LIMIT_MB (256 MB by " +
  "default): it is parsed in a worker.";

/** A toolkit route: a reviewer's (it audits and mitigates), a steward's with keep=true (it imports a dataset). */
const toolkitRoute = <R extends Omit<Parameters<typeof securedRoute>[0], "role">>(r: R) =>
  securedRoute({
    tags: ["spatial-bias"],
    role: "reviewer",
    ...r,
    description:
      `${r.description} With keep=true it imports a dataset, which needs the steward role (a 403 ` +
      "for a reviewer).",
    responses: {
      ...r.responses,
      409: detailResponse(
        "The individuals leave nothing to audit (no one in scope: equal_opp with no y_true = 1), or the " +
          "solver's data does not fit the request",
      ),
      503: detailResponse("keep=true while task documents are switched off (TASKS_ENABLED=false)"),
      ...errorResponses,
    },
  });

export const audit = toolkitRoute({
  method: "post",
  path: "/api/spatial-bias/audit",
  summary: "Spatial bias audit of the individuals sent (the toolkit's stateless audit)",
  description: SAME,
  request: { query: KeepQuery, ...jsonBody(AuditRequest) },
  responses: { 200: json(ToolkitAuditAnswer, "The audit with its maps") },
});

export const relabel = toolkitRoute({
  method: "post",
  path: "/api/spatial-bias/mitigate/relabel",
  summary: "Mitigation by relabeling the individuals sent (PROMIS), audited before and after",
  description: `${SAME} \`mitigated_preds\` has a line for every individual.`,
  request: { query: KeepQuery, ...jsonBody(RelabelRequest) },
  responses: { 200: json(ToolkitRelabelAnswer, "Both audits, the flips and the final predictions") },
});

export const threshold = toolkitRoute({
  method: "post",
  path: "/api/spatial-bias/mitigate/threshold",
  summary: "Per-region thresholds fitted on one set of individuals and applied to another",
  description: `${SAME} The thresholds are fitted on fit_indiv_info and applied to predict_indiv_info (no ` +
    "split inside); the audits, `mitigated_preds` and metrics are the predict set's. Regions are formed " +
    "over both sets together (k-means over both, or the polygons), so a region's threshold applies to " +
    "the predict set's members of it.",
  request: { query: KeepQuery, ...jsonBody(ThresholdRequest) },
  responses: { 200: json(ToolkitThresholdAnswer, "Both audits, the thresholds and the final predictions") },
});
