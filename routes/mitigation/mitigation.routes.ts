/**
 * The mitigation routes of spec 2: relabel and threshold (audit, mitigate, audit again) and the
 * write-back of mitigated predictions into a new field. Each resolves `{data_collection_name}` through
 * its task document.
 */
import { json, jsonBody } from "../http/schemas.ts";
import { CancelledOrMismatch, DataMismatch, TaskParams } from "../spatial/spatial.schemas.ts";
import { taskRoute } from "../spatial/task_route.ts";
import {
  MitigationResponse,
  RelabelRequest,
  ThresholdRequest,
  ThresholdResponse,
  UndoResponse,
  WritebackParams,
  WritebackRequest,
  WritebackResponse,
} from "./mitigation.schemas.ts";
import { RELABEL_DESCRIPTION, THRESHOLD_DESCRIPTION, WRITEBACK_DESCRIPTION } from "./descriptions.ts";

export const writeback = taskRoute({
  role: "steward",
  method: "post",
  path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/writeback",
  summary: "Write mitigated predictions back into a new field",
  description: WRITEBACK_DESCRIPTION,
  request: { params: TaskParams, ...jsonBody(WritebackRequest) },
  responses: { 200: json(WritebackResponse, "What was written"), 409: DataMismatch },
});

export const undoWriteback = taskRoute({
  role: "steward",
  method: "post",
  path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/writeback/{writeback_id}/undo",
  summary: "Undo a write-back: every document as before it, unless changed since",
  description: "Restores the field's previous value (or removes the field where it was absent) in every " +
    "document the write-back wrote that still holds what it wrote; documents changed since by someone else " +
    "are skipped and listed, never overwritten. Asked again, it answers the same and changes nothing. " +
    "A later write-back of the same field must be undone first (409). Logged in `GET /api/decisions`.",
  request: { params: WritebackParams },
  responses: { 200: json(UndoResponse, "What was restored"), 409: DataMismatch },
});

export const relabel = taskRoute({
  role: "reviewer",
  method: "post",
  path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/relabel",
  summary: "Mitigation by relabeling (PROMIS): flip predictions to reduce spatial bias",
  description: RELABEL_DESCRIPTION,
  request: { params: TaskParams, ...jsonBody(RelabelRequest) },
  responses: {
    200: json(MitigationResponse, "Both audits, the flips and the maps"),
    409: CancelledOrMismatch,
  },
});

export const threshold = taskRoute({
  role: "reviewer",
  method: "post",
  path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/threshold",
  summary: "Mitigation by per-region decision thresholds on y_pred_prob",
  description: THRESHOLD_DESCRIPTION,
  request: { params: TaskParams, ...jsonBody(ThresholdRequest) },
  responses: {
    200: json(ThresholdResponse, "Thresholds, both audits of the test part, charts"),
    409: CancelledOrMismatch,
  },
});
