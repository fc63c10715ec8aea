/**
 * The review's settings form: the field mapping (from dataset-columns), the audit (fairness notion,
 * worlds, significance level, region mode) with "Run audit", and the mitigation (budget and tolerance
 * in percent, as the reference frontend asks them, approx, work limit) with "Relabel" (flip order), the
 * budget frontier, and "Thresholds" (decision boundary, train ratio). One form: the mapping and the audit
 * settings hold for all of them, as in the JSON API, where a mitigation audits before and after with them.
 * What it sends is read by settings_request.ts.
 */
import { can } from "../../shared/role_notice.tsx";
import type { Child, FC } from "hono/jsx";
import { Csrf, Field, type FormState, Message, SelectField, Submit } from "../../shared/components.tsx";
import { reviewPostHref } from "../hrefs.ts";
import { frozenOf, type Key, KEYS, SETTINGS_FORM_ID } from "../settings_request.ts";
import { NumberField, TextArea, Toggle } from "./review_parts.tsx";
import { MAX_BUDGETS } from "../../../mitigation/frontier.schemas.ts";
import type { DatasetColumns } from "../../../../services/spatial/dataset_columns.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

const KEY_LABELS: Record<Key, string> = {
  y_pred: "Prediction (y_pred)",
  y_true: "Ground truth (y_true)",
  y_pred_prob: "Probability (y_pred_prob)",
  lat: "Latitude (lat)",
  lon: "Longitude (lon)",
  region_ids: "Region ids (region_ids)",
};

/** The frontier's part of the settings form (inside "Relabel": it runs relabel once per budget). */
export const FrontierFields = ({ state }: { state: FormState }) => (
  <>
    <Field
      label="Frontier budgets (%)"
      name="frontier_pcts"
      state={state}
      autocomplete="off"
      hint={`Up to ${MAX_BUDGETS} budgets, separated by commas: one relabel each`}
    />
    <Submit label="Budget frontier" name="action" value="frontier" busy="Running the frontier…" />
  </>
);

export interface SettingsView {
  task: string;
  session: ConsoleSession;
  columns: DatasetColumns;
  state: FormState;
  /** The run the page shows (the form goes back to it when refused). */
  runId?: string;
  /** Individuals the collection holds, when known: said while the work runs. */
  rows?: number | null;
  /** Shown above the status line (the Cancel button of a mitigation under way: cancel_run.tsx). */
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

/** Which regions the next mitigation leaves alone: ticked under "Freeze" in the result's Regions table. */
const FrozenNote: FC<{ frozen: ReadonlySet<number> }> = ({ frozen }) => (
  <p class="hint">
    {frozen.size
      ? `Frozen regions (none of their members flips): ${[...frozen].sort((a, b) => a - b).join(", ")}.`
      : "To keep a region's members as they are, tick “Freeze” in the Regions table of the result."}
  </p>
);

export const SettingsForm: FC<SettingsView> = (v) => {
  if (!can(v.session, "reviewer")) {
    return (
      <section class="review-form" aria-labelledby="settings-title">
        <h2 id="settings-title">Settings</h2>
        <p class="hint">Running an audit or a mitigation needs the reviewer role; you are a viewer.</p>
      </section>
    );
  }
  const s = v.state;
  const errors = s.errors ?? {};
  return (
    <form
      method="post"
      action={reviewPostHref(v.task)}
      class="review-form"
      id={SETTINGS_FORM_ID}
      aria-labelledby="settings-title"
    >
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
          <NumberField
            label="Most flips per region (%)"
            name="max_flips_pct"
            state={s}
            min={0}
            max={100}
            hint="Share of each region's members; empty: no cap"
          />
        </div>
        <FrozenNote frozen={frozenOf(s.values ?? {})} />
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
