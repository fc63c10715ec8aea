// hono/jsx renders on the server, where a list needs no keys (a `key` would be written out as an attribute)
// deno-lint-ignore-file jsx-key
/** Step 2 of the start form: the chosen method's columns and parameters, then "Start job". */
import { Field, Message, Notice, PostForm, SelectField, Submit } from "../../shared/components.tsx";
import { Busy, CheckGroup, count } from "../../shared/analysis_parts.tsx";
import {
  fieldText,
  methodKey,
  type ParamField,
  paramFields,
  paramHint,
  paramInput,
} from "../cleaning_params.ts";
import type { StartState } from "../start_request.ts";
import { CLEANING } from "../hrefs.ts";
import { kindOf } from "./job_parts.tsx";
import type { DatasetRecord } from "../../../../services/datasets/registry.ts";
import type { MethodSpec } from "../../../../core/cleaning/methods.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

const NUMERIC = new Set(["integer", "number"]);

/** The column a time series is most likely dated by: a name that says so, else the first text column. */
function guessDateColumn(d: DatasetRecord): string | undefined {
  const named = d.columns.find((c) => /(time|date|^ts$|^ds$|when)/i.test(c.name) && !NUMERIC.has(c.type));
  return (named ?? d.columns.find((c) => c.type === "string") ?? d.columns[0])?.name;
}

/** The columns a method can process in a dataset (the run request's default: all of them). */
function usableColumns(d: DatasetRecord, spec: MethodSpec, dateCol: string | undefined): string[] {
  return d.columns.filter((c) =>
    c.name !== "_id" && c.name !== dateCol && c.type !== "array" && c.type !== "object" &&
    (!spec.numericOnly || NUMERIC.has(c.type))
  ).map((c) => c.name);
}

/** A method's parameter: yes/no and a choice as a select, a number or a free value as an input. */
const ParamInput = ({ f, state }: { f: ParamField; state: StartState }) => {
  const field = {
    label: <code>{f.name}</code>,
    name: paramInput(f.name),
    state,
    value: fieldText(f.default),
    hint: paramHint(f),
  };
  const k = f.kind;
  if (k.type === "boolean" || k.type === "choice") {
    const options: [string, string][] = k.type === "boolean"
      ? [["true", "yes"], ["false", "no"]]
      : k.options.map((o) => [String(o), String(o)]);
    return <SelectField {...field} options={options} />;
  }
  const number = k.type === "number";
  return (
    <Field
      {...field}
      type={number ? "number" : "text"}
      attrs={number ? { inputmode: k.integer ? "numeric" : "decimal", step: k.integer ? "1" : "any" } : {}}
    />
  );
};

/** Step 2 of the start form: the chosen method's columns and parameters, then "Start job". */
export const StartForm = (
  { session, state, dataset, spec }: {
    session: ConsoleSession;
    state: StartState;
    dataset: DatasetRecord;
    spec: MethodSpec;
  },
) => {
  const series = spec.dtype === "timeseries";
  const dateCol = state.values?.date_col ?? guessDateColumn(dataset);
  const usable = usableColumns(dataset, spec, series ? dateCol : undefined);
  const ticked = new Set(state.columns ?? usable);
  const params = paramFields(spec);
  return (
    <PostForm
      action={CLEANING}
      session={session}
      needs="reviewer"
      labelledBy="start-step2"
      hidden={{ data: dataset.dataset_name, using: methodKey(spec) }}
    >
      <h3 id="start-step2">
        {`${spec.name} on ${dataset.dataset_name}`}
      </h3>
      <p class="muted">
        {kindOf(spec)}: {spec.summary}. {count(dataset.rows)} rows.
      </p>
      {state.errors?.form && <Notice kind="error">{state.errors.form}</Notice>}
      {series && (
        <SelectField
          label="Date column"
          name="date_col"
          state={state}
          value={dateCol}
          hint="The column that dates each reading: it sorts and spaces the series."
          options={dataset.columns.map((c): [string, string] => [c.name, `${c.name} (${c.type})`])}
        />
      )}
      {usable.length
        ? (
          <CheckGroup
            legend="Columns"
            name="columns"
            id="f-columns"
            hint={spec.numericOnly
              ? "Numeric columns this method can process."
              : "Columns this method can process."}
            error={state.errors?.columns}
            options={usable.map((c) => ({ value: c, label: c, checked: ticked.has(c) }))}
          />
        )
        : <Message kind="error" text={`${dataset.dataset_name} has no column ${spec.name} can process.`} />}
      {params.length > 0 && (
        <fieldset class="group">
          <legend>Parameters</legend>
          <p class="hint">Names as in scikit-learn, PyOD, pandas and ADTK; the defaults are filled in.</p>
          <div class="form-grid">
            {params.map((f) => <ParamInput f={f} state={state} />)}
          </div>
        </fieldset>
      )}
      <Submit label="Start job" disabled={!usable.length} />
      <Busy>Starting the job…</Busy>
    </PostForm>
  );
};
