import assert from "node:assert/strict";
import { storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";

/** 20 individuals: region 0 holds 8 positives of 10, region 1 holds 2 of 10 (as spatial_frontier_test). */
const docs = Array.from({ length: 20 }, (_, i) => ({
  y_pred: i < 10 ? (i < 8 ? 1 : 0) : (i < 12 ? 1 : 0),
  y_true: i % 3 === 0 ? 1 : 0,
  region_ids: [i < 10 ? 0 : 1],
}));
const TASK = "/api/spatial-hitl/task/preds";

/** Nothing in the page comes from elsewhere: no script, no stylesheet link, no remote address at all. */
function selfContained(html: string) {
  assert.doesNotMatch(html, /<script|<link|<iframe|@import/i);
  assert.doesNotMatch(html, /(src|href)="(?!data:)/i);
  assert.doesNotMatch(html, /url\(/i);
}

storeTest(
  "run report: a relabel's settings, constraints, solver, audits, maps and its write-back",
  async (t) => {
    await t.store.insertMany({ db: t.db, collection: "preds" }, docs);
    const task = { database_name: t.db, data_collection_name: "preds" };
    assert.equal((await t.app.request("/api/tasks/documents", jsonBody("POST", task))).status, 201);
    const relabel = await t.app.request(
      `${TASK}/mitigate/relabel`,
      jsonBody("POST", { equal_opp: false, n_worlds: 50, budget_constr: 0.3, max_flips_per_region: 0.2 }),
    );
    assert.equal(relabel.status, 200, await relabel.clone().text());
    const { run_id, n_flips } = await relabel.json();
    const wb = await t.app.request(
      `${TASK}/mitigate/writeback`,
      jsonBody("POST", { new_field: "fair", run_id }),
    );
    assert.equal(wb.status, 200, await wb.clone().text());

    const res = await t.app.request(`${TASK}/runs/${run_id}/report`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/html/);
    const html = await res.text();
    assert.match(html, /^<!DOCTYPE html><html lang="en">/);
    assert.match(html, new RegExp(`<dd>${run_id} \\(relabel\\)</dd>`));
    assert.match(html, new RegExp(`<dd>${t.db}</dd>`));
    assert.match(html, /<dt>Most flips per region<\/dt><dd>0.2<\/dd>/);
    assert.match(html, /<dt>Frozen regions<\/dt><dd>none<\/dd>/);
    assert.match(html, /<dt>Status<\/dt><dd>0: /);
    assert.match(html, new RegExp(`<dt>Flips</dt><dd>${n_flips}</dd>`));
    assert.match(html, /<h2>Audit before<\/h2>/);
    assert.match(html, /<h2>Audit after<\/h2>/);
    assert.match(html, /<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="flips map image"/);
    // the write-back of this run, with who (the test app's token subject) and what
    assert.match(html, /<td>write-back into field fair<\/td><td class="n">\d+ changed of 20<\/td>/);
    selfContained(html);
    // its undo is a decision on the run too, listed after it with its counts
    const { writeback_id } = await wb.json();
    const undo = await t.app.request(`${TASK}/mitigate/writeback/${writeback_id}/undo`, { method: "POST" });
    assert.equal(undo.status, 200);
    const after = await (await t.app.request(`${TASK}/runs/${run_id}/report`)).text();
    assert.match(
      after,
      /write-back into field fair<\/td>.*<td>undo of the write-back into field fair<\/td><td class="n">20 restored, 0 skipped/s,
    );

    // an audit's report has the audit and no solver section; an unknown run is a 404
    const audit = await t.app.request(`${TASK}/audit`, jsonBody("POST", { equal_opp: false, n_worlds: 50 }));
    const auditId = (await audit.json()).run_id;
    const auditHtml = await (await t.app.request(`${TASK}/runs/${auditId}/report`)).text();
    assert.match(auditHtml, /<h2>Audit<\/h2>/);
    assert.doesNotMatch(auditHtml, /<h2>Solver<\/h2>/);
    selfContained(auditHtml);
    assert.equal((await t.app.request(`${TASK}/runs/${"0".repeat(24)}/report`)).status, 404);
  },
);
