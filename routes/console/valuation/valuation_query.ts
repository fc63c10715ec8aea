/**
 * The valuation page's inputs: the form's fields as the page's address carries them (the analysis runs on
 * a GET), and the feature-importance request they make, checked by the JSON API's own schema.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { errorsByField } from "../shared/components.tsx";
import type { DatasetRecord } from "../../../services/datasets/registry.ts";
import type { Method } from "../../../core/stats/correlation.ts";
import { FeatureImportanceRequest } from "../../valuation/valuation.schemas.ts";
import { zodToDetail } from "../../http/error_answers.ts";

/** The valuation page's address. */
export const VALUATION = "/console/valuation";

/** The form's fields as the page's address carries them. */
export interface Query {
  dataset?: string;
  target?: string;
  /** The dataset the target was chosen for: a target left over from another dataset is not used. */
  targetOf?: string;
  folds?: string;
  trainSize?: string;
  seed?: string;
  models?: string[];
  method: Method;
}

export function queryOf(c: Context<ConsoleEnv>): Query {
  const q = (k: string) => c.req.query(k)?.trim() || undefined;
  const method = q("corr");
  return {
    dataset: q("dataset"),
    target: q("target"),
    targetOf: q("target_of"),
    folds: q("folds"),
    trainSize: q("train_size"),
    seed: q("seed"),
    models: c.req.queries("model_names"),
    method: method === "spearman" || method === "kendall" ? method : "pearson",
  };
}

/** The request body of the feature-importance API that the form's fields make, or the fields' problems. */
export function featureRequest(q: Query, dataset: DatasetRecord) {
  const errors: Record<string, string> = {};
  const body: Record<string, unknown> = {};
  const num = (field: string, text: string | undefined) => {
    if (text === undefined) return;
    const n = Number(text);
    if (Number.isFinite(n)) body[field] = n;
    else errors[field] = "Enter a number.";
  };
  num("folds", q.folds);
  num("train_size", q.trainSize);
  num("seed", q.seed);
  const target = q.targetOf === dataset.dataset_name ? q.target : undefined;
  if (target) body.target = target;
  if (q.models?.length) body.model_names = q.models;
  const parsed = FeatureImportanceRequest.safeParse(body);
  if (!parsed.success) Object.assign(errors, errorsByField(zodToDetail(parsed.error, "body", body)));
  if (Object.keys(errors).length || !parsed.success) return { errors };
  return { errors, request: parsed.data };
}
