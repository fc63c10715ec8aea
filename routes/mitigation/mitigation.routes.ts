/**
 * The mitigation routes of spec 2: relabel and threshold (audit, mitigate, audit again) and the
 * write-back of mitigated predictions into a new field. Each resolves `{data_collection_name}` through
 * its task document.
 */
import { securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import { TaskNotFound, TaskParams } from "../spatial/spatial.schemas.ts";
import {
  MitigationResponse,
  RelabelRequest,
  ThresholdRequest,
  ThresholdResponse,
  WritebackRequest,
  WritebackResponse,
} from "./mitigation.schemas.ts";
import { RELABEL_DESCRIPTION, THRESHOLD_DESCRIPTION, WRITEBACK_DESCRIPTION } from "./descriptions.ts";

export const writeback = securedRoute({
  method: "post",
  path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/writeback",
  tags: ["spatial-hitl"],
  summary: "Write mitigated predictions back into a new field",
  description: WRITEBACK_DESCRIPTION,
  request: {
    params: TaskParams,
    body: { content: { "application/json": { schema: WritebackRequest } }, required: true },
  },
  responses: {
    200: json(WritebackResponse, "What was written"),
    404: TaskNotFound,
    ...errorResponses,
  },
});

export const relabel = securedRoute({
  method: "post",
  path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/relabel",
  tags: ["spatial-hitl"],
  summary: "Mitigation by relabeling (PROMIS): flip predictions to reduce spatial bias",
  description: RELABEL_DESCRIPTION,
  request: {
    params: TaskParams,
    body: { content: { "application/json": { schema: RelabelRequest } }, required: true },
  },
  responses: {
    200: json(MitigationResponse, "Both audits, the flips and the maps"),
    404: TaskNotFound,
    ...errorResponses,
  },
});

export const threshold = securedRoute({
  method: "post",
  path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/threshold",
  tags: ["spatial-hitl"],
  summary: "Mitigation by per-region decision thresholds on y_pred_prob",
  description: THRESHOLD_DESCRIPTION,
  request: {
    params: TaskParams,
    body: { content: { "application/json": { schema: ThresholdRequest } }, required: true },
  },
  responses: {
    200: json(ThresholdResponse, "Thresholds, both audits of the test part, charts"),
    404: TaskNotFound,
    ...errorResponses,
  },
});
