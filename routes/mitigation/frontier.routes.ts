/** The budget frontier of relabel: one relabel per budget, each kept as a run. */
import { json, jsonBody } from "../http/schemas.ts";
import { CancelledOrMismatch, TaskParams } from "../spatial/spatial.schemas.ts";
import { taskRoute } from "../spatial/task_route.ts";
import { FrontierRequest, FrontierResponse } from "./frontier.schemas.ts";

export const frontier = taskRoute({
  role: "reviewer",
  method: "post",
  path: "/api/spatial-hitl/task/{data_collection_name}/mitigate/relabel/frontier",
  summary: "Budget frontier of relabeling: one relabel per budget",
  description: "Runs `mitigate/relabel` once per value of `budgets` (ascending, each once) with the other " +
    "fields as given, sharing the prepared dataset and the audit before. Each point is kept as its own " +
    "relabel run: its `run_id` opens it (`GET .../runs/{run_id}`) and `mitigate/writeback` accepts it. " +
    "A task keeps its last 20 runs, so a long frontier pushes older runs out.",
  request: { params: TaskParams, ...jsonBody(FrontierRequest) },
  responses: { 200: json(FrontierResponse, "One point per budget"), 409: CancelledOrMismatch },
});
