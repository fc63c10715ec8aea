/**
 * The review's settings form: the field mapping (from dataset-columns), the audit (fairness notion,
 * worlds, significance level, region mode) with "Run audit", and the mitigation (budget and tolerance
 * in percent, as the reference frontend asks them, approx, work limit) with "Relabel" (flip order) and
 * "Thresholds" (decision boundary, train ratio). One form: the mapping and the audit settings hold for
 * all three, as in the JSON API, where a mitigation audits before and after with them.
 *
 * The form's strings become the JSON API's request body, which the API's own schema then checks
 * (AuditRequest, RelabelRequest, ThresholdRequest): a refusal comes back as the API's 422 `loc`, and is
 * shown next to the field it names.
 */
import type { Child, FC } from "hono/jsx";
import type { z } from "zod";
import { Csrf, type FormState, Message, SelectField, Submit } from "../shared/components.tsx";
import { AuditRequest } from "../../spatial/spatial.schemas.ts";
import { RelabelRequest, ThresholdRequest } from "../../mitigation/mitigation.schemas.ts";
import { type ValidationItem, zodToDetail } from "../../http/error_answers.ts";
import type { DatasetColumns } from "../../../services/spatial/dataset_columns.ts";
import type { TaskDocument } from "../../../services/tasks/task_documents.ts";
import type { ConsoleSession } from "../../../services/console/sessions.ts";
import { NumberField, reviewPostHref, TextArea, Toggle } from "./review_parts.tsx";
import { asPercent } from "./review_parts.tsx";
import { FrontierFields, percentList } from "./review_frontier.tsx";
import { FrontierRequest } from "../../mitigation/frontier.schemas.ts";

export const ACTIONS = ["audit", "relabel", "threshold", "frontier"] as const;
export type Action = typeof ACTIONS[number];

/**
 * The mapping keys, in the form's order. Their fields are named `map_<key>`: no dot, since a form sent
 * after the session ended is kept as a document (session.ts), and MongoDB refuses dotted field names.
 */
const KEYS = ["y_pred", "y_true", "y_pred_prob", "lat", "lon", "region_ids"] as const;
type Key = typeof KEYS[number];

const KEY_LABELS: Record<Key, string> = {
  y_pred: "Prediction (y_pred)",
  y_true: "Ground truth (y_true)",
  y_pred_prob: "Probability (y_pred_prob)",
  lat: "Latitude (lat)",
  lon: "Longitude (lon)",
  region_ids: "Region ids (region_ids)",
};

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
  if (Array.isArray(req.region)) {
    values.region_mode = "polygons";
    values.region = JSON.stringify(req.region);
  }
  return values;
}

// ---------------------------------------------------------------------------------------------------
// From the form to the API's request body

/** The form field that shows an API field's refusal. */
function formField(loc: ValidationItem["loc"]): string {
  const [, key, sub] = loc;
  if (key === "mapping" && typeof sub === "string") return `map_${sub}`;
  if (key === "budget_constr") return "budget_pct";
  if (key === "budgets") return "frontier_pcts";
  if (key === "pr_constr") return "tolerance_pct";
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

// ---------------------------------------------------------------------------------------------------
// The form

export interface SettingsView {
  task: string;
  session: ConsoleSession;
  columns: DatasetColumns;
  state: FormState;
  /** The run the page shows (the form goes back to it when refused). */
  runId?: string;
  /** Individuals the collection holds, when known: said while the work runs. */
  rows?: number | null;
  /** Shown above the status line (the Cancel button of a mitigation under way: review_cancel.tsx). */
  children?: Child;
}

/** The mapping's choices for one key: every profiled field, with a "none" only where no field fits. */
function mappingOptions(cols: DatasetColumns, key: Key, chosen: string): [string, string][] {
  const opts: [string, string][] = cols.columns.map((c) => [c.name, c.name]);
  if (chosen && !cols.columns.some((c) => c.name === chosen)) opts.unshift([chosen, chosen]);
  if (cols.mapping_defaults[key] === null) opts.unshift(["", "— none —"]);
  return opts;
}

/** Where the script says that the work runs (empty until then; a live region, so it is announced). */
const Busy: FC<{ rows?: number | null }> = ({ rows }) => (
  <p
    class="busy"
    data-busy-status
    data-note={`This runs on ${rows ? `${rows.toLocaleString("en-US")} records` : "the whole collection"} ` +
      "and can take a minute; the result opens when it is done."}
    role="status"
  >
  </p>
);

export const SettingsForm: FC<SettingsView> = (v) => {
  const s = v.state;
  const errors = s.errors ?? {};
  return (
    <form method="post" action={reviewPostHref(v.task)} class="review-form" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <Csrf session={v.session} />
      {v.runId && <input type="hidden" name="from" value={v.runId} />}
      <Message kind="error" text={errors.form} />
      <fieldset class="box">
        <legend>Field mapping</legend>
        <p class="hint">
          The collection's fields (from its first {v.columns.sampled}{" "}
          documents); the suggested ones are preselected.
        </p>
        <div class="pair-grid">
          {KEYS.map((k) => (
            <SelectField
              label={KEY_LABELS[k]}
              name={`map_${k}`}
              state={s}
              options={mappingOptions(v.columns, k, s.values?.[`map_${k}`] ?? "")}
            />
          ))}
        </div>
      </fieldset>

      <fieldset class="box">
        <legend>Audit</legend>
        <SelectField
          label="Fairness notion"
          name="equal_opp"
          state={s}
          options={[
            ["true", "Equal opportunity (TPR)"],
            ["false", "Statistical parity"],
          ]}
        />
        <div class="pair-grid">
          <NumberField label="Worlds" name="n_worlds" state={s} min={1} max={100000} step="1" />
          <NumberField label="Significance level" name="signif_level" state={s} min={0} max={1} />
        </div>
        <SelectField
          label="Region mode"
          name="region_mode"
          state={s}
          options={[
            ["auto", "Region ids, or k-means"],
            ["polygons", "Polygons (below)"],
          ]}
        />
        <TextArea
          label="Region polygons (JSON)"
          name="region"
          state={s}
          rows={2}
          hint='With "Polygons": [{"polygon": [[lon, lat], …]}, …]'
        />
        <details class="more" open={Boolean(errors.seed || errors.rng)}>
          <summary>More audit settings</summary>
          <div class="pair-grid">
            <NumberField label="Seed" name="seed" state={s} min={0} step="1" />
            <SelectField
              label="Random stream"
              name="rng"
              state={s}
              options={[["fast", "fast"], ["numpy", "numpy (reference)"]]}
            />
          </div>
          <Toggle label="Draw every individual in the distribution map" name="full_distribution" state={s} />
        </details>
        <Submit label="Run audit" name="action" value="audit" busy="Running audit…" />
      </fieldset>

      <fieldset class="box">
        <legend>Mitigation</legend>
        <div class="pair-grid">
          <NumberField
            label="Budget (%)"
            name="budget_pct"
            state={s}
            min={0}
            max={100}
            hint="Most flips, share of those audited"
          />
          <NumberField
            label="Tolerance (%)"
            name="tolerance_pct"
            state={s}
            min={0}
            max={100}
            hint="Relative change of the rate"
          />
        </div>
        <div class="pair-grid">
          <NumberField label="Work limit (s)" name="work_limit" state={s} min={1} max={3600} />
        </div>
        <Toggle
          label="Approx (PROMIS-Approx)"
          name="approx"
          state={s}
          hint="Off: PROMIS-Exact, the proven optimum"
        />
        <fieldset class="sub">
          <legend>Relabel</legend>
          <SelectField
            label="Flip order"
            name="flip_order"
            state={s}
            options={[
              ["", "Default"],
              ["uncertainty", "Least certain first"],
              ["random", "Random (seeded)"],
              ["index", "Collection order (reference)"],
            ]}
          />
          <Submit label="Relabel" name="action" value="relabel" busy="Relabeling…" />
          <FrontierFields state={s} />
        </fieldset>
        <fieldset class="sub">
          <legend>Thresholds</legend>
          <div class="pair-grid">
            <NumberField label="Decision boundary" name="default_boundary" state={s} min={0} max={1} />
            <NumberField label="Train ratio" name="train_ratio" state={s} min={0} max={1} />
          </div>
          <Submit label="Thresholds" name="action" value="threshold" busy="Fitting thresholds…" />
        </fieldset>
      </fieldset>
      {v.children}
      <Busy rows={v.rows} />
    </form>
  );
};
