/** The mitigation handlers: path and body in, the service's answer out; the caller is noted on the task. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./mitigation.routes.ts";
import { toRelabelSettings, toThresholdSettings } from "./mitigation.schemas.ts";
import { mitigateByRelabel } from "../../services/mitigation/relabel.ts";
import { mitigateByThreshold } from "../../services/mitigation/threshold.ts";
import { writeBack } from "../../services/mitigation/writeback.ts";
import * as undo from "../../services/mitigation/writeback_undo.ts";
import { deciderOf } from "../http/decider.ts";
import { jsonAnswer } from "../http/json_answer.ts";

export const writeback: AppRouteHandler<typeof routes.writeback> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  const { new_field, preds, run_id } = c.req.valid("json");
  const target = { collectionName: data_collection_name, newField: new_field, who: deciderOf(c) };
  // the schema lets exactly one of the two through
  const what = run_id !== undefined ? { runId: run_id } : { preds: preds! };
  return c.json(await writeBack(c.var.deps, { ...target, ...what }), 200);
};

export const undoWriteback: AppRouteHandler<typeof routes.undoWriteback> = async (c) => {
  const { data_collection_name, writeback_id } = c.req.valid("param");
  const input = { collectionName: data_collection_name, writebackId: writeback_id, who: deciderOf(c) };
  return c.json(await undo.undoWriteback(c.var.deps, input), 200);
};

export const relabel: AppRouteHandler<typeof routes.relabel> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  const body = c.req.valid("json");
  const target = { collectionName: data_collection_name, requestedBy: c.var.principal.sub, request: body };
  // a line per individual: written in pieces (json_answer.ts)
  return jsonAnswer(c, await mitigateByRelabel(c.var.deps, { ...target, ...toRelabelSettings(body) }));
};

export const threshold: AppRouteHandler<typeof routes.threshold> = async (c) => {
  const { data_collection_name } = c.req.valid("param");
  const body = c.req.valid("json");
  const target = { collectionName: data_collection_name, requestedBy: c.var.principal.sub, request: body };
  return jsonAnswer(c, await mitigateByThreshold(c.var.deps, { ...target, ...toThresholdSettings(body) }));
};
