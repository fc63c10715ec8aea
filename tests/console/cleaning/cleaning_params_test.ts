/**
 * The cleaning catalogue as the start form shows it (routes/console/cleaning/cleaning_params.ts): each method's
 * parameters with their kind, bounds and defaults as core/cleaning/methods.ts declares them, and a form's
 * texts turned back into a run request's typed params.
 */
import assert from "node:assert/strict";
import { findMethod, METHODS } from "../../../core/cleaning/methods.ts";
import {
  fieldText,
  methodGroups,
  methodKey,
  methodOfKey,
  paramFields,
  paramInput,
  paramsFromForm,
} from "../../../routes/console/cleaning/cleaning_params.ts";

const fieldsOf = (task: "impute" | "detect", dtype: "tabular" | "timeseries", name: string) =>
  paramFields(findMethod(task, dtype, name)!);

Deno.test("paramFields: kinds, bounds and defaults as the catalogue declares them", () => {
  assert.deepEqual(fieldsOf("impute", "tabular", "knn"), [
    {
      name: "n_neighbors",
      kind: { type: "number", integer: true, min: 1, max: 100 },
      default: 5,
      optional: false,
    },
    { name: "standardize", kind: { type: "boolean" }, default: true, optional: false },
  ]);
  assert.deepEqual(fieldsOf("impute", "timeseries", "spline"), [
    { name: "order", kind: { type: "choice", options: [1, 3] }, default: 3, optional: false },
  ]);
  assert.deepEqual(fieldsOf("impute", "tabular", "constant"), [
    { name: "fill_value", kind: { type: "value" }, default: undefined, optional: true },
  ]);
  assert.deepEqual(
    fieldsOf("detect", "timeseries", "threshold").map((f) => [f.name, f.kind.type, f.optional]),
    [
      ["low", "number", true],
      ["high", "number", true],
    ],
  );
  assert.deepEqual(fieldsOf("detect", "tabular", "isolation_forest").map((f) => [f.name, f.default]), [
    ["contamination", 0.1],
    ["n_estimators", 100],
    ["max_samples", 256],
    ["random_state", 0],
  ]);
  assert.deepEqual(fieldsOf("impute", "tabular", "mean"), [], "columns is asked for apart");
});

Deno.test("paramsFromForm: texts to typed values; empty fields left to the defaults; a bad number named", () => {
  const knn = fieldsOf("impute", "tabular", "knn");
  assert.deepEqual(
    paramsFromForm(knn, { [paramInput("n_neighbors")]: " 7 ", [paramInput("standardize")]: "false" }),
    {
      params: { n_neighbors: 7, standardize: false },
      problems: {},
    },
  );
  assert.deepEqual(paramsFromForm(knn, { [paramInput("n_neighbors")]: "" }), { params: {}, problems: {} });
  assert.deepEqual(paramsFromForm(knn, { [paramInput("n_neighbors")]: "five" }), {
    params: {},
    problems: { p_n_neighbors: "Enter a whole number." },
  });
  const constant = fieldsOf("impute", "tabular", "constant");
  const value = (text: string) => paramsFromForm(constant, { p_fill_value: text }).params.fill_value;
  assert.equal(value("0"), 0);
  assert.equal(value("-1.5"), -1.5);
  assert.equal(value("true"), true);
  assert.equal(value("unknown"), "unknown");
  assert.equal(paramsFromForm(fieldsOf("impute", "timeseries", "spline"), { p_order: "1" }).params.order, 1);
});

Deno.test("every method: its defaults shown in the form and sent back are what its schema fills in", () => {
  for (const m of METHODS) {
    const fields = paramFields(m);
    const form = Object.fromEntries(fields.map((f) => [paramInput(f.name), fieldText(f.default)]));
    const { params, problems } = paramsFromForm(fields, form);
    assert.deepEqual(problems, {}, m.name);
    if (m.task === "detect" && m.dtype === "timeseries" && m.name === "threshold") continue; // needs low or high
    assert.deepEqual(m.params.parse(params), m.params.parse({}), `${m.task} ${m.dtype} ${m.name}`);
  }
});

Deno.test("method keys: every method once, in groups of task and data type", () => {
  for (const m of METHODS) assert.equal(methodOfKey(methodKey(m)), m);
  assert.equal(methodOfKey("impute/tabular/nope"), undefined);
  assert.equal(methodOfKey(undefined), undefined);
  const groups = methodGroups();
  assert.deepEqual(groups.map((g) => g.label), [
    "Impute · table",
    "Impute · time series",
    "Detect anomalies · table",
    "Detect anomalies · time series",
  ]);
  assert.equal(groups.reduce((n, g) => n + g.methods.length, 0), METHODS.length);
});
