/**
 * The spatial audit routes of spec 2: which fields a task's collection offers for the mapping, and the
 * audit itself. Both resolve `{data_collection_name}` through its task document.
 */
import { z } from "@hono/zod-openapi";
import { detailResponse, json, jsonBody } from "../http/schemas.ts";
import { MAPPING_SAMPLE } from "../../core/spatial/mapping.ts";
import { RUNS_KEPT } from "../../services/spatial/runs.ts";
import {
  AuditRequest,
  AuditResponse,
  CancelResponse,
  DataMismatch,
  DatasetColumns,
  RunList,
  RunMapParams,
  RunParams,
  RunQuery,
  StoredRun,
  TaskParams,
} from "./spatial.schemas.ts";
import { taskRoute } from "./task_route.ts";

export const datasetColumns = taskRoute({
  role: "viewer",
  method: "get",
  path: "/api/spatial-hitl/task/{data_collection_name}/dataset-columns",
  summary: `Columns available for mapping (from the first ${MAPPING_SAMPLE} documents)`,
  description: `The columns profile the first ${MAPPING_SAMPLE} documents in collection order (a ` +
    "fixed sample: the same data always answers the same). `mapping_defaults` is the field an audit " +
    "reads for each key its request leaves out, found in those same documents exactly as the audit " +
    "finds it: the key's own name when they hold a value in it, else a common synonym they hold " +
    "(latitude for lat...), else null (the slot is absent).",
  request: { params: TaskParams },
  responses: { 200: json(DatasetColumns, "Fields with type, presence and an example") },
});

export const audit = taskRoute({
  role: "reviewer",
  method: "post",
  path: "/api/spatial-hitl/task/{data_collection_name}/audit",
  summary: "Spatial bias audit (likelihood-ratio scan statistic with Monte Carlo significance)",
  description: "Individuals are the collection's documents in insertion order (document ids ascending); " +
    "`idx` in `stats` is a region's position in the sorted list of region ids. rng=numpy reproduces the " +
    "reference's numpy stream, which depends on that order. A mapping key left out reads the field " +
    "dataset-columns shows for it in `mapping_defaults`; a field the request maps must be in every " +
    "document (else 422, naming the key, the field and how many documents lack it).",
  request: { params: TaskParams, ...jsonBody(AuditRequest) },
  responses: { 200: json(AuditResponse, "The audit with its maps"), 409: DataMismatch },
});

const KEPT =
  `Every audit, relabel and threshold answer is kept as a run of its task (its request, summary, ` +
  `maps and final predictions); a task keeps its last ${RUNS_KEPT} runs, and saving one more removes the ` +
  `oldest.`;

const RUNNING = "A mitigation is listed from its start, in state `running` with its phase and, while " +
  "solving, its best objective and bound, until it completes (then `complete`), fails or is cancelled " +
  "(then no more).";

const STILL_RUNNING = detailResponse("The run is still running: its answer is kept once it completes");

export const runs = taskRoute({
  role: "viewer",
  method: "get",
  path: "/api/spatial-hitl/task/{data_collection_name}/runs",
  summary: `The task's running mitigations and kept runs, newest first (the last ${RUNS_KEPT} kept)`,
  description: `${KEPT} ${RUNNING}`,
  request: { params: TaskParams },
  responses: {
    200: json(RunList, "The runs: id, kind, state, time, summary, map names; progress if running"),
  },
});

export const run = taskRoute({
  role: "viewer",
  method: "get",
  path: "/api/spatial-hitl/task/{data_collection_name}/runs/{run_id}",
  summary: "One kept run: the answer it gave",
  description: `${KEPT} A run the task does not keep (never made, another task's, or removed) is a 404; ` +
    "one still running a 409.",
  request: { params: RunParams, query: RunQuery },
  responses: { 200: json(StoredRun, "The stored answer"), 409: STILL_RUNNING },
});

export const cancelRun = taskRoute({
  role: "reviewer",
  method: "post",
  path: "/api/spatial-hitl/task/{data_collection_name}/runs/{run_id}/cancel",
  summary: "Cancel a running mitigation",
  description: "Stops a running relabel or threshold (state `running` in the list) within a second: its " +
    "solver's worker is replaced, its own request answers 409 at once (`state: cancelled`), and nothing " +
    "of its run is kept. This answers once it has stopped (`cancelled`), or after 3 s (`cancelling`: " +
    "another server runs it and stops it within a second, or with WORKERS=0 a task that cannot be " +
    "interrupted holds it until it ends). Cancelling it again answers the same. An unknown run is a 404; " +
    "one that has finished, or whose server stopped without finishing it, a 409.",
  request: { params: RunParams },
  responses: {
    200: json(CancelResponse, "Cancelled, or being cancelled"),
    409: detailResponse("The run is not running: it has finished, or its server stopped"),
  },
});

export const runReport = taskRoute({
  role: "viewer",
  method: "get",
  path: "/api/spatial-hitl/task/{data_collection_name}/runs/{run_id}/report",
  summary: "A kept run's review report: one self-contained HTML document",
  description: "The task and its dataset, the run's settings and constraints, the solver's status, " +
    "objective, bound and gap, the metrics and audits before and after, the flips per region, the maps " +
    "(inline images) and the write-backs of the run's predictions with who and when. Nothing is loaded " +
    "from elsewhere; it prints to PDF from a browser. An unknown run is a 404; one still running a 409.",
  request: { params: RunParams },
  responses: {
    409: STILL_RUNNING,
    200: { description: "The report", content: { "text/html": { schema: z.string() } } },
  },
});

export const runMap = taskRoute({
  role: "viewer",
  method: "get",
  path: "/api/spatial-hitl/task/{data_collection_name}/runs/{run_id}/maps/{name}",
  summary: "One map of a kept run, as a page or an image",
  description: "A `*_html` map as text/html; a `*_image` map or a threshold chart as image/png (the " +
    "answer's base64 decoded). An unknown run or map name is a 404 naming it (and the run's maps).",
  request: { params: RunMapParams },
  responses: {
    409: STILL_RUNNING,
    200: {
      description: "The map",
      content: {
        "text/html": { schema: z.string() },
        "image/png": { schema: z.string().openapi({ format: "binary" }) },
      },
    },
  },
});
