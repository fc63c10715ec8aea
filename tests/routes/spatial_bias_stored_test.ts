/**
 * The toolkit's stateless face against the stored path, on both stores: the same individuals, imported as
 * a dataset with a task, give the same SBI, significant regions and optimum; `keep=true` leaves a dataset
 * and a run the existing routes serve (and write back), and without it nothing is stored.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";

/**
 * 240 individuals in three clusters of coordinates (k-means regions), the predictions leaning by cluster,
 * from a fixed linear congruential sequence: nothing random between runs.
 */
function individuals(n = 240) {
  let x = 12345;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const centres = [[23.7, 37.9], [22.9, 40.6], [21.7, 38.2]];
  return Array.from({ length: n }, (_, i) => {
    const [lon, lat] = centres[i % 3];
    const bias = [0.85, 0.2, 0.5][i % 3];
    const y_pred = next() < bias ? 1 : 0;
    return {
      y_pred,
      y_true: next() < 0.8 ? 1 : 0,
      lat: Math.round((lat + (next() - 0.5) * 0.2) * 1e5) / 1e5,
      lon: Math.round((lon + (next() - 0.5) * 0.2) * 1e5) / 1e5,
      y_pred_prob: y_pred ? 0.5 + next() / 2.1 : next() / 2.1,
    };
  });
}

/** Imports `rows` as dataset `name` of the test's database, with its task document. */
async function storedTask(t: StoreApp, name: string, rows: unknown[]) {
  const imported = await t.app.request(`/api/datasets/${t.db}/${name}`, jsonBody("POST", rows));
  assert.equal(imported.status, 200, await imported.clone().text());
  const task = await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: name }),
  );
  assert.equal(task.status, 201, await task.clone().text());
}

const post = async (t: StoreApp, path: string, body: unknown) => {
  const res = await t.app.request(path, jsonBody("POST", body));
  const answer = await res.json();
  assert.equal(res.status, 200, JSON.stringify(answer));
  return answer;
};

type Stat = { idx: number; stat: number; is_signif: boolean };
const statsOf = (a: { stats: Stat[] }) =>
  a.stats.map(({ idx, stat, is_signif }) => ({ idx, stat, is_signif }));

storeTest("toolkit vs stored task: the same SBI, significant regions and relabel optimum", async (t) => {
  const rows = individuals();
  await storedTask(t, "same_rows", rows);
  const settings = { n_worlds: 300, equal_opp: false };
  const stored = await post(t, "/api/spatial-hitl/task/same_rows/audit", settings);
  const face = await post(t, "/api/spatial-bias/audit", { ...settings, indiv_info: rows });
  assert.equal(face.sbi_score, stored.sbi_score);
  assert.equal(face.signif_thresh, stored.signif_thresh);
  assert.equal(face.total_signif_regions, stored.total_signif_regions);
  assert.ok(face.total_signif_regions > 0); // the clusters lean: some regions are significant
  assert.deepEqual(statsOf(face), statsOf(stored));
  const mitigation = { ...settings, budget_constr: 0.1, pr_constr: 0.05 };
  const storedFix = await post(t, "/api/spatial-hitl/task/same_rows/mitigate/relabel", mitigation);
  const faceFix = await post(t, "/api/spatial-bias/mitigate/relabel", { ...mitigation, indiv_info: rows });
  assert.equal(faceFix.objective, storedFix.objective);
  assert.equal(faceFix.solver_status_code, storedFix.solver_status_code);
  assert.equal(faceFix.n_flips, storedFix.n_flips);
  assert.deepEqual(faceFix.regions_delta, storedFix.regions_delta);
  const preds = (a: { mitigated_preds: { idx: number; y_pred: number }[] }) =>
    a.mitigated_preds.map(({ idx, y_pred }) => [idx, y_pred]);
  assert.deepEqual(preds(faceFix), preds(storedFix));
  assert.equal(faceFix.audit_after_mitigation.sbi_score, storedFix.audit_after_mitigation.sbi_score);
});

storeTest(
  "toolkit keep=true: a dataset, a task and a run the existing routes serve and write back",
  async (t) => {
    const rows = individuals(90);
    const url = `/api/spatial-bias/mitigate/relabel?keep=true&database_name=${t.db}`;
    const a = await post(t, url, { indiv_info: rows, n_worlds: 50, equal_opp: false });
    assert.equal(typeof a.run_id, "string");
    assert.equal(a.kept.database_name, t.db);
    const task = a.kept.task as string;
    assert.match(task, /^toolkit_relabel_\d{8}T\d{6}_[0-9a-f]{6}$/);
    // the dataset: the rows as sent, in order, each with its idx
    const exported = await t.app.request(`/api/datasets/${t.db}/${task}`);
    assert.equal(exported.status, 200);
    const docs = (await exported.text()).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(docs.length, 90);
    assert.deepEqual(docs.map((d) => [d.idx, d.y_pred, d.lat]), rows.map((r, i) => [i, r.y_pred, r.lat]));
    // the run, listed and served; its predictions carry the documents' ids
    const runs = await (await t.app.request(`/api/spatial-hitl/task/${task}/runs`)).json();
    assert.deepEqual(runs.map((r: { run_id: string }) => r.run_id), [a.run_id]);
    const run = await (await t.app.request(`/api/spatial-hitl/task/${task}/runs/${a.run_id}`)).json();
    assert.equal(run.objective, a.objective);
    assert.deepEqual(a.mitigated_preds.map((p: { doc_id: string }) => p.doc_id), docs.map((d) => d._id));
    // the console's next step: write the run's predictions back
    const written = await post(t, `/api/spatial-hitl/task/${task}/mitigate/writeback`, {
      new_field: "y_fair",
      run_id: a.run_id,
    });
    assert.equal(written.matched, 90);
    // an audit kept the same way is its own dataset and task
    const audit = await post(t, `/api/spatial-bias/audit?keep=true&database_name=${t.db}`, {
      indiv_info: rows,
      n_worlds: 50,
    });
    assert.notEqual(audit.kept.task, task);
    const listed = await (await t.app.request("/api/tasks/documents")).json();
    assert.equal(listed.length, 2);
  },
);

storeTest("toolkit without keep: nothing stored, no task, no dataset, no run", async (t) => {
  const rows = individuals(60);
  await post(t, "/api/spatial-bias/audit", { indiv_info: rows, n_worlds: 20 });
  await post(t, "/api/spatial-bias/mitigate/relabel", { indiv_info: rows, n_worlds: 20 });
  await post(t, "/api/spatial-bias/mitigate/threshold", {
    fit_indiv_info: rows,
    predict_indiv_info: rows.slice(0, 30),
    n_worlds: 20,
  });
  assert.deepEqual(await (await t.app.request("/api/tasks/documents")).json(), []);
  const tessera = await t.store.list({ db: t.config.TESSERA_DB, collection: "datasets" }, {});
  assert.deepEqual(tessera, []);
  const runs = await t.store.list({ db: t.config.TESSERA_DB, collection: "spatial_runs" }, {});
  assert.deepEqual(runs, []);
});
