/**
 * A dataset's target is recorded explicitly (issue 21, item 12), on both stores: the import's `target`
 * option, else the last column of its first import; an approved anomaly detection appends `is_anomaly` as
 * the last column without changing it, so feature importance's default target stays the same.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../support/stores.ts";
import { approve, testRunner } from "./cleaning_support.ts";
import { findDataset, registryRef } from "../../services/datasets/registry.ts";
import { jsonRequest } from "../support/stores.ts";

/** 60 rows: two numeric features, a two-level group and a binary label (the last column). */
function csv(): string {
  const lines = ["x1,x2,group,label"];
  for (let i = 0; i < 60; i++) lines.push(`${i},${(i * 7) % 13},${i % 2 ? "a" : "b"},${i < 30 ? 0 : 1}`);
  return lines.join("\n") + "\n";
}

function importCsv(t: StoreApp, collection: string, query = "") {
  return t.app.request(`/api/datasets/${t.db}/${collection}${query}`, {
    method: "POST",
    body: csv(),
    headers: { "content-type": "text/csv" },
  });
}

/** Feature importance without a target: the column it predicted. */
async function defaultTarget(t: StoreApp, collection: string): Promise<string> {
  const res = await t.app.request(
    `/api/feature-importance/analyze?dataset-id=${collection}`,
    jsonRequest("POST", { folds: 3, model_names: ["Decision Tree Classifier"] }),
  );
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.target;
}

/** Detects anomalies in x1, x2 and approves with the default flag field (is_anomaly, appended last). */
async function approveAnomalies(t: StoreApp, collection: string): Promise<void> {
  const { runner, close } = testRunner(t);
  try {
    const res = await t.app.request(
      "/run/",
      jsonRequest("POST", {
        data: collection,
        task: "detect",
        dtype: "tabular",
        method: "isolation_forest",
        params: { columns: ["x1", "x2"], contamination: 0.1 },
      }),
    );
    assert.equal(res.status, 200, await res.clone().text());
    const job = await res.json();
    await runner.runOnce();
    const approval = await approve(t, { job_id: job.job_id });
    assert.equal(approval.status, 200, await approval.clone().text());
  } finally {
    await close();
  }
}

storeTest(
  "target: the first import's last column is recorded and survives an approved is_anomaly",
  async (t) => {
    assert.equal((await importCsv(t, "toy")).status, 200);
    assert.equal((await findDataset(t.store, t.config.TESSERA_DB, "toy"))?.target_column, "label");
    assert.equal(await defaultTarget(t, "toy"), "label");
    await approveAnomalies(t, "toy");
    const rec = await findDataset(t.store, t.config.TESSERA_DB, "toy");
    assert.deepEqual(rec?.columns.map((c) => c.name), ["x1", "x2", "group", "label", "is_anomaly"]);
    assert.equal(rec?.target_column, "label");
    assert.equal(await defaultTarget(t, "toy"), "label");
    // the console's valuation page offers the recorded target, not the appended column
    const signIn = await t.app.request("/console/sign-in", {
      method: "POST",
      headers: { origin: "http://localhost:8000" },
      body: new URLSearchParams({ username: "ana", password: "" }),
    });
    assert.equal(signIn.status, 303);
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0];
    const page = await (await t.app.request("/console/valuation?dataset=toy", { headers: { cookie } }))
      .text();
    assert.match(page, /<option value="label" selected[^>]*>label<\/option>/);
    assert.doesNotMatch(page, /<option value="is_anomaly" selected/);
    // appending rows keeps it too
    assert.equal((await importCsv(t, "toy", "?mode=append")).status, 200);
    assert.equal((await findDataset(t.store, t.config.TESSERA_DB, "toy"))?.target_column, "label");
  },
);

storeTest(
  "target: the import option names it; a column the upload lacks is a 422 and nothing is kept",
  async (t) => {
    const res = await importCsv(t, "grouped", "?target=group");
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await res.json()).target, "group");
    assert.equal((await findDataset(t.store, t.config.TESSERA_DB, "grouped"))?.target_column, "group");
    assert.equal(await defaultTarget(t, "grouped"), "group");
    // a re-import without the option keeps the recorded target while the column is there
    assert.equal((await importCsv(t, "grouped", "?mode=replace")).status, 200);
    assert.equal((await findDataset(t.store, t.config.TESSERA_DB, "grouped"))?.target_column, "group");
    // and another option changes it
    assert.equal((await importCsv(t, "grouped", "?mode=replace&target=x1")).status, 200);
    assert.equal((await findDataset(t.store, t.config.TESSERA_DB, "grouped"))?.target_column, "x1");

    const bad = await importCsv(t, "nothing", "?target=nope");
    assert.equal(bad.status, 404);
    const { detail } = await bad.json();
    assert.deepEqual(detail[0].loc, ["query", "target"]);
    assert.match(
      detail[0].msg,
      /target 'nope' is not a column of the imported rows \(x1, x2, group, label\)/,
    );
    assert.equal(await findDataset(t.store, t.config.TESSERA_DB, "nothing"), null);
    assert.equal(await t.store.count({ db: t.db, collection: "nothing" }), 0);
  },
);

storeTest(
  "target: a record made before targets were recorded gets its last column when is_anomaly is added",
  async (t) => {
    assert.equal((await importCsv(t, "legacy")).status, 200);
    const { target_column: _, ...old } = (await findDataset(t.store, t.config.TESSERA_DB, "legacy"))!;
    await t.store.put(registryRef(t.config.TESSERA_DB), old);
    assert.equal((await findDataset(t.store, t.config.TESSERA_DB, "legacy"))?.target_column, undefined);
    await approveAnomalies(t, "legacy");
    assert.equal((await findDataset(t.store, t.config.TESSERA_DB, "legacy"))?.target_column, "label");
    assert.equal(await defaultTarget(t, "legacy"), "label");
  },
);
