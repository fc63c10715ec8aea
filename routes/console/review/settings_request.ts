/**
 * The review's settings form as the JSON API's request body: the form's strings become the body of
 * AuditRequest, RelabelRequest, ThresholdRequest or FrontierRequest, which the API's own schema then
 * checks; a refusal comes back as the API's 422 `loc` and is shown next to the field it names. Also the
 * form's values when it is shown: a reopened run's, the task's mapping, or the API's defaults.
 */
import type { z } from "zod";
import { AuditRequest } from "../../spatial/spatial.schemas.ts";
import { RelabelRequest, ThresholdRequest } from "../../mitigation/mitigation.schemas.ts";
import { FrontierRequest } from "../../mitigation/frontier.schemas.ts";
import { type ValidationItem, zodToDetail } from "../../http/error_answers.ts";
import { asPercent } from "./formats.ts";
import type { DatasetColumns } from "../../../services/spatial/dataset_columns.ts";
import type { TaskDocument } from "../../../services/tasks/task_documents.ts";

export const ACTIONS = ["audit", "relabel", "threshold", "frontier"] as const;
export type Action = typeof ACTIONS[number];

/**
 * The mapping keys, in the form's order. Their fields are named `map_<key>`: no dot, since a form sent
 * after the session ended is kept as a document (shared/session.ts), and MongoDB refuses dotted field names.
 */
export const KEYS = ["y_pred", "y_true", "y_pred_prob", "lat", "lon", "region_ids"] as const;
export type Key = typeof KEYS[number];

/** The settings form's id: the region tables' "Freeze" boxes belong to it (their `form` attribute). */
export const SETTINGS_FORM_ID = "review-settings";

/** A "Freeze" box's field: this prefix and the region id, "on" when ticked (frozen_regions). */
export const FROZEN_FIELD = "frozen_";

/** The region ids the form's "Freeze" boxes tick. */
export function frozenOf(fields: Record<string, string>): Set<number> {
  const ids = new Set<number>();
  for (const [k, v] of Object.entries(fields)) {
    const id = k.startsWith(FROZEN_FIELD) && v === "on" ? Number(k.slice(FROZEN_FIELD.length)) : NaN;
    if (Number.isSafeInteger(id) && id >= 0) ids.add(id);
  }
  return ids;
}

/** The form's values when nothing says otherwise: the JSON API's defaults, as the form shows them. */
const DEFAULTS: Record<string, string> = {
  equal_opp: "true",
  n_worlds: "400",
  signif_level: "0.005",
  region_mode: "auto",
  region: "",
  seed: "42",
  rng: "fast",
  full_distribution: "false",
  budget_pct: "20",
  tolerance_pct: "10",
  approx: "true",
  work_limit: "30",
  flip_order: "",
  frontier_pcts: "5, 10, 20, 30, 40",
  max_flips_pct: "",
  default_boundary: "0.5",
  train_ratio: "0.7",
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The form's values: the mapping from the run's request, else the task document's `mapping`, else the
 * suggested defaults; the other settings from the run's request (a reopened run shows what it ran with),
 * else the defaults.
 */
export function formValues(
  columns: DatasetColumns,
  task: TaskDocument,
  request?: unknown,
): Record<string, string> {
  const values = { ...DEFAULTS };
  const req = isRecord(request) ? request : {};
  const taskMapping = isRecord(task.mapping) ? task.mapping : {};
  const reqMapping = isRecord(req.mapping) ? req.mapping : {};
  for (const k of KEYS) {
    const v = reqMapping[k] ?? taskMapping[k] ?? columns.mapping_defaults[k];
    values[`map_${k}`] = typeof v === "string" ? v : "";
  }
  const text = (k: string, v: unknown) => {
    if (typeof v === "number" || typeof v === "boolean" || typeof v === "string") values[k] = String(v);
  };
  for (const k of ["equal_opp", "n_worlds", "signif_level", "seed", "rng", "full_distribution"]) {
    text(k, req[k]);
  }
  for (const k of ["approx", "work_limit", "flip_order", "default_boundary", "train_ratio"]) text(k, req[k]);
  if (typeof req.budget_constr === "number" && req.budget_constr <= 1) {
    values.budget_pct = asPercent(req.budget_constr);
  }
  if (typeof req.pr_constr === "number") values.tolerance_pct = asPercent(req.pr_constr);
  if (typeof req.max_flips_per_region === "number" && req.max_flips_per_region <= 1) {
    values.max_flips_pct = asPercent(req.max_flips_per_region);
  }
  if (Array.isArray(req.frozen_regions)) {
    for (const id of req.frozen_regions) if (typeof id === "number") values[`${FROZEN_FIELD}${id}`] = "on";
  }
  if (Array.isArray(req.region)) {
    values.region_mode = "polygons";
    values.region = JSON.stringify(req.region);
  }
  return values;
}

/** The form field that shows an API field's refusal. */
function formField(loc: ValidationItem["loc"]): string {
  const [, key, sub] = loc;
  if (key === "mapping" && typeof sub === "string") return `map_${sub}`;
  if (key === "budget_constr") return "budget_pct";
  if (key === "budgets") return "frontier_pcts";
  if (key === "pr_constr") return "tolerance_pct";
  if (key === "max_flips_per_region") return "max_flips_pct";
  if (key === undefined) return "form";
  return String(key);
}

/** The fields the form shows; a refusal of any other field is shown at the top of the form. */
const SHOWN = new Set([
  ...KEYS.map((k) => `map_${k}`),
  ...Object.keys(DEFAULTS),
]);

/** Per form field, the first message the API's 422 items give for it (the rest at the top, "form"). */
export function errorsFromDetail(detail: ValidationItem[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of detail) {
    let field = formField(d.loc);
    let msg = d.msg;
    if (field === "region" && d.loc.length > 2) {
      const [, , polygon, , point] = d.loc;
      const where = [
        typeof polygon === "number" ? `polygon ${polygon + 1}` : null,
        typeof point === "number" ? `point ${point + 1}` : null,
      ].filter(Boolean).join(", ");
      if (where) msg = `${where[0].toUpperCase()}${where.slice(1)}: ${msg}`;
    }
    if (!SHOWN.has(field)) {
      msg = `${d.loc.slice(1).join(".")}: ${msg}`;
      field = "form";
    }
    out[field] ??= msg;
  }
  return out;
}

/** What parsing the form gives: the API body, or the form's errors. */
export type Parsed =
  | { ok: true; action: Action; body: Record<string, unknown> }
  | { ok: false; errors: Record<string, string> };

const SCHEMAS: Record<Action, z.ZodType> = {
  audit: AuditRequest,
  relabel: RelabelRequest,
  threshold: ThresholdRequest,
  frontier: FrontierRequest,
};

/**
 * The request body of `action` from the form's fields, checked by the JSON API's schema. A mapping key
 * is sent only when it differs from the suggested default (a key left out reads that field anyway,
 * and the API holds an explicitly mapped field to be in every document).
 */
export function parseSettings(
  action: Action,
  fields: Record<string, string>,
  defaults: DatasetColumns["mapping_defaults"],
): Parsed {
  const errors: Record<string, string> = {};
  const body: Record<string, unknown> = { include_maps: false };
  const value = (k: string) => (fields[k] ?? "").trim();
  const number = (k: string, target: string, opts: { percent?: boolean } = {}) => {
    const s = value(k);
    if (s === "") return; // the API's default
    const n = Number(s);
    if (!Number.isFinite(n)) return void (errors[k] = "Enter a number.");
    if (opts.percent) {
      if (n < 0 || n > 100) return void (errors[k] = "Enter a percentage from 0 to 100.");
      body[target] = n / 100;
    } else body[target] = n;
  };
  const flag = (k: string, target = k) => {
    const s = value(k);
    if (s === "true" || s === "false") body[target] = s === "true";
  };

  const mapping: Record<string, string> = {};
  for (const k of KEYS) {
    const chosen = value(`map_${k}`);
    if (chosen !== "" && chosen !== (defaults[k] ?? "")) mapping[k] = chosen;
  }
  if (Object.keys(mapping).length) body.mapping = mapping;
  flag("equal_opp");
  number("n_worlds", "n_worlds");
  number("signif_level", "signif_level");
  number("seed", "seed");
  if (value("rng")) body.rng = value("rng");
  flag("full_distribution");
  if (value("region_mode") === "polygons") {
    const text = value("region");
    if (!text) errors.region = "Paste the polygons, or choose the region ids / k-means mode.";
    else {
      try {
        const parsed: unknown = JSON.parse(text);
        // a bare list of rings is taken as the API's [{polygon: ring}, ...]
        body.region = Array.isArray(parsed)
          ? parsed.map((r) => (Array.isArray(r) ? { polygon: r } : r))
          : parsed;
      } catch (e) {
        errors.region = `Not valid JSON (${(e as Error).message}).`;
      }
    }
  }
  if (action === "frontier") body.budgets = percentList(value("frontier_pcts"), errors);
  if (action !== "audit") {
    if (action !== "frontier") number("budget_pct", "budget_constr", { percent: true });
    number("tolerance_pct", "pr_constr", { percent: true });
    flag("approx");
    number("work_limit", "work_limit");
    number("max_flips_pct", "max_flips_per_region", { percent: true });
    const frozen = frozenOf(fields);
    if (frozen.size) body.frozen_regions = [...frozen].sort((a, b) => a - b);
  }
  if ((action === "relabel" || action === "frontier") && value("flip_order")) {
    body.flip_order = value("flip_order");
  }
  if (action === "threshold") {
    number("default_boundary", "default_boundary");
    number("train_ratio", "train_ratio");
  }
  if (Object.keys(errors).length) return { ok: false, errors };

  const checked = SCHEMAS[action].safeParse(body);
  if (!checked.success) {
    return { ok: false, errors: errorsFromDetail(zodToDetail(checked.error, "body", body)) };
  }
  return { ok: true, action, body: checked.data as Record<string, unknown> };
}

/** The form's budgets: percentages separated by commas or spaces, as fractions (errors under the field). */
export function percentList(text: string, errors: Record<string, string>): number[] | undefined {
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  const values = parts.map(Number);
  if (values.some((v) => !Number.isFinite(v) || v < 0 || v > 100)) {
    errors.frontier_pcts = "Enter percentages from 0 to 100, separated by commas.";
    return undefined;
  }
  return values.map((v) => v / 100);
}

/** A run id as the services make them (services/spatial/live_runs.ts: newRunId). */
const RUN_ID = /^[0-9a-f]{24}$/;

/**
 * The run id a review form sent for its mitigation (review.js adds the page's, so that the run can be
 * cancelled while it runs), when it is one; else the service makes one.
 */
export const sentRunId = (fields: Record<string, string>) =>
  RUN_ID.test(fields.run_id ?? "") ? fields.run_id : undefined;
