import assert from "node:assert/strict";
import { findMethod, methodNames, METHODS, paramNames } from "../../../core/cleaning/methods.ts";
import { runCleaning } from "../../../core/cleaning/run.ts";
import { KdTree, Neighbors } from "../../../core/cleaning/kd_tree.ts";
import { InvalidInputError } from "../../../core/errors.ts";
import { dailySeries, factorTable } from "./fixtures.ts";
import { Rng } from "../../../core/random.ts";

/** Minimal valid params for the two methods that have required ones. */
const needs: Record<string, Record<string, unknown>> = { "detect/timeseries/threshold": { high: 20 } };

Deno.test("catalogue: every method the issue lists, 28 in all, each runnable through runCleaning", () => {
  assert.deepEqual(methodNames("impute", "tabular"), [
    "mean",
    "median",
    "most_frequent",
    "constant",
    "knn",
    "iterative",
  ]);
  assert.deepEqual(methodNames("impute", "timeseries"), [
    "linear",
    "time",
    "ffill",
    "bfill",
    "spline",
    "seasonal",
    "rolling_mean",
  ]);
  assert.deepEqual(methodNames("detect", "tabular"), [
    "isolation_forest",
    "lof",
    "knn",
    "hbos",
    "ecod",
    "zscore",
    "iqr",
  ]);
  assert.deepEqual(methodNames("detect", "timeseries"), [
    "threshold",
    "quantile",
    "iqr",
    "esd",
    "persist",
    "level_shift",
    "volatility_shift",
    "seasonal",
  ]);
  const { cols } = factorTable(200, 3, 5);
  cols[0][3] = NaN;
  const { times, values } = dailySeries(24 * 5, 6);
  values[10] = NaN;
  for (const m of METHODS) {
    const series = m.dtype === "timeseries";
    const columns = series ? [{ name: "v", values }] : cols.map((values, j) => ({ name: `c${j}`, values }));
    const out = runCleaning({
      task: m.task,
      dtype: m.dtype,
      method: m.name,
      params: needs[`${m.task}/${m.dtype}/${m.name}`] ?? {},
      columns,
      times: series ? times : undefined,
    });
    assert.equal(out.task, m.task, m.name);
    if (out.task === "detect") {
      assert.equal(out.labels.length, columns[0].values.length, m.name);
      assert.equal(out.scores.length, columns[0].values.length, m.name);
    } else {
      assert.ok(out.filled.length + Object.keys(out.unfilled).length > 0, `${m.task}/${m.dtype}/${m.name}`);
    }
  }
});

Deno.test("catalogue: params are strict, defaulted, and every method takes columns", () => {
  const knn = findMethod("impute", "tabular", "knn")!;
  assert.deepEqual(paramNames(knn), ["columns", "n_neighbors", "standardize"]);
  assert.deepEqual(knn.params.parse({}), { n_neighbors: 5, standardize: true });
  assert.equal(knn.params.safeParse({ k: 3 }).success, false);
  assert.equal(findMethod("detect", "timeseries", "threshold")!.params.safeParse({}).success, false);
  assert.equal(
    findMethod("detect", "timeseries", "quantile")!.params.safeParse({ low: 0.9, high: 0.1 }).success,
    false,
  );
  assert.ok(METHODS.every((m) => paramNames(m)[0] === "columns"));
});

Deno.test("runCleaning: a series whose cycle cannot be inferred asks for the period by name", () => {
  const times = Float64Array.from({ length: 30 }, (_, i) => i * 7_000);
  const values = Float64Array.from({ length: 30 }, (_, i) => (i === 4 ? NaN : i));
  assert.throws(
    () =>
      runCleaning({
        task: "impute",
        dtype: "timeseries",
        method: "seasonal",
        params: {},
        columns: [{ name: "v", values }],
        times,
      }),
    (e) => e instanceof InvalidInputError && /params\.period/.test(e.message),
  );
});

Deno.test("k-d tree: the same k nearest as brute force, with and without left-out dimensions", () => {
  const rng = new Rng(9);
  const n = 3000, d = 4, k = 7;
  const data = Float64Array.from({ length: n * d }, () => rng.normal());
  const tree = new KdTree(data, d, Int32Array.from({ length: n }, (_, i) => i));
  const nb = new Neighbors(k);
  for (let trial = 0; trial < 50; trial++) {
    const q = Float64Array.from({ length: d }, () => rng.normal() * 1.5);
    if (trial % 2) q[trial % d] = NaN;
    tree.query(q, nb);
    const brute = Array.from({ length: n }, (_, i) => {
      let s = 0;
      for (let j = 0; j < d; j++) if (!Number.isNaN(q[j])) s += (q[j] - data[i * d + j]) ** 2;
      return s;
    }).sort((a, b) => a - b);
    assert.deepEqual([...nb.dist2], brute.slice(0, k));
  }
});

// knn detection with no `contamination` in params takes the catalogue's default, 0.1: rows strictly above
// the 90th percentile of 2,000 scores. numpy's percentile sits at sorted position 0.9·1,999 = 1,799.1,
// between the 1,800th and 1,801st scores; when those two differ, exactly the top 200 rows (10 %) are flagged.
Deno.test("runCleaning: a tabular detection without contamination flags 10 % of rows (default 0.1)", () => {
  const { cols } = factorTable(2000, 3, 71);
  const out = runCleaning({
    task: "detect",
    dtype: "tabular",
    method: "knn",
    params: {},
    columns: cols.map((values, j) => ({ name: `c${j}`, values })),
  });
  assert.equal(out.task, "detect");
  if (out.task !== "detect") return;
  const sorted = Float64Array.from(out.scores).sort();
  assert.ok(sorted[1799] < sorted[1800]);
  assert.equal(out.labels.reduce((s, l) => s + l, 0), 200);
  assert.ok(out.threshold > sorted[1799] && out.threshold < sorted[1800]);
});
