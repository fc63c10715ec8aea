/**
 * The valuation routes over both stores (storeTest: KV always, MongoDB when TEST_MONGO_URL is set),
 * on the demo churn table imported with importRecords and on small CSVs.
 */
import assert from "node:assert/strict";
import { importCsv, jsonRequest, type StoreApp, storeTest } from "../support/stores.ts";
import { importRecords } from "../../services/datasets/import.ts";
import { tabularDemo } from "../../core/demo/datasets.ts";

async function* rows<T>(it: Iterable<T>): AsyncGenerator<T> {
  yield* it;
}

/** The demo churn table (2,000 rows), or `n` rows of it drawn with `seed`, as `collection`. */
async function seedChurn(
  t: StoreApp,
  collection = "customer_churn",
  n?: number,
  seed?: number,
): Promise<void> {
  await importRecords(t.store, t.config.TESSERA_DB, { db: t.db, collection }, rows(tabularDemo(n, seed)));
}

const post = (t: StoreApp, path: string, body?: unknown) =>
  t.app.request(path, body === undefined ? { method: "POST" } : jsonRequest("POST", body));

const close = (a: number, b: number, tol: number) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

// pandas 3.1.1 on the same rows: pd.DataFrame(list_of_demo_rows).corr(method=m, numeric_only=True)
// (the rows of tabularDemo() written to JSON and read back with json.load, so every double is exact).
const PANDAS = {
  pearson: {
    tenure_churn: -0.44538267137557946,
    age_satisfaction: -0.016061782603031594,
    calls_satisfaction: -0.8218543460412889,
  },
  spearman: {
    tenure_churn: -0.44410051937879624,
    age_satisfaction: -0.001666169772996081,
    calls_satisfaction: -0.7431865913228507,
  },
  kendall: {
    tenure_churn: -0.3652323877273071,
    age_satisfaction: -0.001219254023349736,
    calls_satisfaction: -0.6090175496603284,
  },
};

storeTest(
  "correlations: the demo table's numeric columns, pairwise-complete, as pandas computes them",
  async (t) => {
    await seedChurn(t);
    const res = await post(t, "/api/correlations/analyze?dataset-id=customer_churn", {
      include_kendall: true,
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.deepEqual(body.dataset_shape, [2000, 10]);
    assert.equal(body.feature_count, 8); // customer_id and contract_plan are text
    assert.deepEqual(Object.keys(body.pearson), [
      "age",
      "tenure_months",
      "monthly_charges",
      "total_charges",
      "support_calls",
      "data_usage_gb",
      "satisfaction",
      "churn",
    ]);
    for (const m of ["pearson", "spearman", "kendall"] as const) {
      close(body[m].tenure_months.churn, PANDAS[m].tenure_churn, 1e-12);
      close(body[m].churn.tenure_months, PANDAS[m].tenure_churn, 1e-12);
      close(body[m].age.satisfaction, PANDAS[m].age_satisfaction, 1e-12); // both have gaps
      close(body[m].support_calls.satisfaction, PANDAS[m].calls_satisfaction, 1e-12);
      assert.equal(body[m].age.age, 1);
    }
    // Defaults: Pearson and Spearman on, Kendall off (null); no body at all is the defaults.
    const plain = await (await post(t, "/api/correlations/analyze?dataset-id=customer_churn")).json();
    assert.equal(plain.kendall, null);
    assert.deepEqual(plain.pearson, body.pearson);
    const none = await (await post(t, "/api/correlations/analyze?dataset-id=customer_churn", {
      include_pearson: false,
      include_spearman: false,
    })).json();
    assert.deepEqual([none.pearson, none.spearman, none.kendall], [null, null, null]);
  },
);

storeTest(
  "correlations: booleans as 0/1, a constant column gives null (never NaN), text left out; 404; 422",
  async (t) => {
    await importCsv(t, "small", "a,flag,k,name\n1,true,5,x\n2,false,5,y\n3,true,5,z\n4,true,,w\n");
    const res = await post(t, "/api/correlations/analyze?dataset-id=small", { include_kendall: true });
    const body = await res.json();
    assert.deepEqual(body.dataset_shape, [4, 4]);
    assert.equal(body.feature_count, 3);
    // a = 1..4, flag = 1,0,1,1: mean 2.5 and 0.75, Σdxdy = 0.5, Σdx² = 5, Σdy² = 0.75 → r = 0.5/√3.75.
    close(body.pearson.a.flag, 0.5 / Math.sqrt(3.75), 1e-15);
    assert.deepEqual(body.pearson.k, { a: null, flag: null, k: null });
    assert.equal(body.kendall.a.k, null);
    assert.equal((await post(t, "/api/correlations/analyze?dataset-id=nope", {})).status, 404);
    const bad = await post(t, "/api/correlations/analyze?dataset-id=small", { include_tau: true });
    assert.equal(bad.status, 422);
    assert.deepEqual((await bad.json()).detail[0].loc, ["body", "include_tau"]);
    const missing = await post(t, "/api/correlations/analyze", {});
    assert.deepEqual((await missing.json()).detail[0].loc, ["query", "dataset-id"]);
  },
);

storeTest("feature importance: the demo table, all four models, the best one's importances", async (t) => {
  await seedChurn(t);
  const res = await post(t, "/api/feature-importance/analyze?dataset-id=customer_churn", { seed: 3 });
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.deepEqual(body.dataset_shape, [2000, 10]);
  assert.equal(body.cv_folds, 10);
  assert.equal(body.target, "churn"); // the last column of the demo table
  assert.deepEqual([...body.model_names].sort(), [
    "Decision Tree Classifier",
    "Extra Trees Classifier",
    "Light Gradient Boosting Machine",
    "Random Forest Classifier",
  ]);
  assert.equal(body.best_model, body.model_names[0]);
  assert.deepEqual(body.accuracy_scores, [...body.accuracy_scores].sort((a: number, b: number) => b - a));
  // The label is a threshold on −0.06·tenure + 0.7·calls + …: the ensembles reach ~0.85, a lone tree less.
  assert.ok(
    body.accuracy_scores[0] > 0.8 && body.holdout_accuracy > 0.8,
    JSON.stringify(body.accuracy_scores),
  );
  const features = body.feature_importance.map((f: { Feature: string }) => f.Feature);
  assert.ok(!features.includes("customer_id") && !features.includes("churn"));
  assert.ok(features.includes("contract_plan_basic"));
  assert.ok(["tenure_months", "support_calls"].includes(features[0]), features[0]);
  const imp = body.feature_importance.map((f: { Importance: number }) => f.Importance);
  close(imp.reduce((a: number, b: number) => a + b, 0), 1, 1e-12);
  assert.deepEqual(imp, [...imp].sort((a: number, b: number) => b - a));
  assert.ok(body.elapsed_seconds > 0);

  // The same seed repeats exactly (through the pool, whatever order the jobs ran in).
  const again =
    await (await post(t, "/api/feature-importance/analyze?dataset-id=customer_churn", { seed: 3 })).json();
  assert.deepEqual({ ...again, elapsed_seconds: 0 }, { ...body, elapsed_seconds: 0 });
});

storeTest(
  "feature importance: options (target, models, folds) and the 404/422s that say what is wrong",
  async (t) => {
    const lines = ["x,noise,label"];
    for (let i = 0; i < 60; i++) lines.push(`${i},${(i * 7) % 11},${i < 30 ? "low" : "high"}`);
    await importCsv(t, "toy", lines.join("\n"));
    const url = "/api/feature-importance/analyze?dataset-id=toy";
    const res = await post(t, url, {
      model_names: ["Decision Tree Classifier", "Random Forest Classifier"],
      folds: 3,
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.deepEqual([...body.model_names].sort(), ["Decision Tree Classifier", "Random Forest Classifier"]);
    assert.equal(body.feature_importance[0].Feature, "x");
    assert.deepEqual(body.accuracy_scores, [1, 1]);

    // Another target: `noise` has 11 classes of 5-6 rows, too few for 10 folds on a 70 % split.
    const folds = await post(t, url, { target: "noise" });
    assert.equal(folds.status, 409);
    const fd = (await folds.json()).detail[0];
    assert.deepEqual(fd.loc, ["body", "folds"]);
    assert.match(fd.msg, /too few rows for 10-fold cross-validation: class '\d+' has [34] rows/);

    const unknown = await post(t, url, { model_names: ["Random Forest Classifier", "XGBoost"] });
    assert.equal(unknown.status, 422);
    const ud = (await unknown.json()).detail[0];
    assert.deepEqual(ud.loc, ["body", "model_names", 1]);
    for (
      const name of ["Extra Trees Classifier", "Light Gradient Boosting Machine", "Random Forest Classifier"]
    ) {
      assert.ok(ud.msg.includes(name), ud.msg);
    }

    await importCsv(t, "one_class", "x,y\n1,a\n2,a\n3,a\n4,a\n");
    const one = await post(t, "/api/feature-importance/analyze?dataset-id=one_class", {});
    assert.equal(one.status, 409);
    assert.deepEqual((await one.json()).detail[0], {
      loc: ["body", "target"],
      msg: "target 'y' has only one class (a); feature importance needs at least two classes",
      type: "value_error",
    });
    const noTarget = await post(t, url, { target: "nope" });
    assert.match(
      (await noTarget.json()).detail[0].msg,
      /target 'nope' is not a column of the dataset \(x, noise, label\)/,
    );
    assert.equal((await post(t, "/api/feature-importance/analyze?dataset-id=missing", {})).status, 404);
    assert.equal((await post(t, url, { folds: 1 })).status, 422);
    assert.equal((await post(t, url, { train_size: 1 })).status, 422);
    assert.deepEqual((await (await post(t, url, { n_trees: 5 })).json()).detail[0].type, "extra_forbidden");
  },
);

/** The four models by name, sorted (the spec's list). */
const ALL_MODELS = [
  "Decision Tree Classifier",
  "Extra Trees Classifier",
  "Light Gradient Boosting Machine",
  "Random Forest Classifier",
];

storeTest(
  "feature importance: an empty or null model list is all four; train_size 0.7 and seed 42 by default",
  async (t) => {
    await seedChurn(t, "churn_small", 400, 3);
    const url = "/api/feature-importance/analyze?dataset-id=churn_small";
    const reply = async (body?: unknown) => {
      const res = await post(t, url, body);
      assert.equal(res.status, 200);
      return { ...await res.json(), elapsed_seconds: 0 };
    };
    const bare = await reply();
    assert.deepEqual([...bare.model_names].sort(), ALL_MODELS);
    // The same models and the same answer however "all of them" is said, and with the defaults spelled out.
    assert.deepEqual(await reply({ model_names: [] }), bare);
    assert.deepEqual(await reply({ model_names: null, train_size: 0.7, seed: 42 }), bare);
    assert.deepEqual(await reply({ model_names: ALL_MODELS, train_size: 0.7, seed: 42, folds: 10 }), bare);
    // Another seed or split draws other rows, so the same answer above is not one every setting gives.
    assert.notDeepEqual((await reply({ seed: 43 })).accuracy_scores, bare.accuracy_scores);
    assert.notDeepEqual((await reply({ train_size: 0.6 })).accuracy_scores, bare.accuracy_scores);
  },
);

storeTest("feature importance: the 422 for an unknown model lists the four allowed names", async (t) => {
  await importCsv(t, "tiny", "x,y\n1,a\n2,b\n");
  const res = await post(t, "/api/feature-importance/analyze?dataset-id=tiny", { model_names: ["XGBoost"] });
  assert.equal(res.status, 422);
  const detail = (await res.json()).detail[0];
  assert.deepEqual(detail.loc, ["body", "model_names", 0]);
  for (const name of ALL_MODELS) assert.ok(detail.msg.includes(name), detail.msg);
});

storeTest(
  "feature importance: the OpenAPI document says `target` names the column the default picked",
  async (t) => {
    const doc = await (await t.app.request("/openapi.json")).json();
    const target = doc.components.schemas.FeatureImportanceResponse.properties.target;
    assert.match(target.description, /the dataset's recorded target when none was given/);
  },
);

storeTest("feature importance: /healthz answers while an analysis is running in the pool", async (t) => {
  await seedChurn(t, "churn_small", 400, 3);
  let finished = false;
  const analysis = Promise.resolve(post(t, "/api/feature-importance/analyze?dataset-id=churn_small", {}))
    .then((res) => {
      finished = true;
      return res;
    });
  // Probe every 50 ms until the analysis ends: the probes are timers on the main thread, so they only
  // run (and are only answered) while the training leaves that thread free.
  let answered = 0;
  while (!finished) {
    await new Promise((r) => setTimeout(r, 50));
    const health = await t.app.request("/healthz");
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });
    if (!finished) answered++;
  }
  assert.equal((await analysis).status, 200);
  assert.ok(answered >= 3, `${answered} probes answered while the analysis ran`);
});
