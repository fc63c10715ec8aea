/**
 * The review's constraints without a browser, over the eight individuals of SPOTS_CSV (region 0: 3
 * positives of 4, region 1: 1 of 4; statistical parity, tolerance 0, budget 50 %, so C = 4): the Regions
 * table's "Freeze" boxes belong to the settings form, a ticked one reaches the relabel as frozen_regions,
 * and the result shows it ticked again. Unfrozen, one flip in each region brings both to 2 of 4.
 */
import assert from "node:assert/strict";
import { importCsv, storeTest } from "../support/stores.ts";
import { createTaskDocument } from "../../services/tasks/task_documents.ts";
import { getPage, postForm, signIn, SPOTS_CSV, SPOTS_SETTINGS } from "../support/console_session.ts";

const SETTINGS = {
  ...SPOTS_SETTINGS,
  tolerance_pct: "0",
  budget_pct: "50",
  approx: "true",
  work_limit: "30",
};

/** The run id a review post redirected to. */
const runOf = (res: Response) => /\/runs\/([0-9a-f]{24})/.exec(res.headers.get("location") ?? "")?.[1];

storeTest("console: Freeze boxes in the Regions table freeze regions; the cap field caps them", async (t) => {
  await importCsv(t, "spots", SPOTS_CSV);
  await createTaskDocument(t, { database_name: t.db, data_collection_name: "spots", status: "pending" });
  const s = await signIn(t, "spots");
  assert.match(s.page, /<form[^>]*id="review-settings"/);
  const audit = await postForm(t, s, "/console/tasks/spots/review", { ...SETTINGS, action: "audit" });
  assert.equal(audit.status, 303, await audit.text());
  const auditPage = await (await getPage(t, s, audit.headers.get("location")!)).text();
  for (const id of [0, 1]) {
    assert.match(auditPage, new RegExp(`<input type="checkbox" form="review-settings" name="frozen_${id}"`));
  }
  // unfrozen: one flip in each region
  const plain = await postForm(t, s, "/console/tasks/spots/review", { ...SETTINGS, action: "relabel" });
  assert.equal(plain.status, 303, await plain.text());
  const flips = async (runId: string) => {
    const run = await (await t.app.request(`/api/spatial-hitl/task/spots/runs/${runId}`)).json();
    return { run, per: run.n_flips_per_region.map((r: { n_flips: number }) => r.n_flips) };
  };
  assert.deepEqual((await flips(runOf(plain)!)).per, [1, 1]);
  // region 0 ticked: none of its members flips, and the newP window (tolerance 0) leaves region 1 alone too
  const frozen = await postForm(t, s, "/console/tasks/spots/review", {
    ...SETTINGS,
    action: "relabel",
    frozen_0: "on",
  });
  assert.equal(frozen.status, 303, await frozen.text());
  const f = await flips(runOf(frozen)!);
  assert.deepEqual(f.run.frozen_regions, [0]);
  assert.equal(f.per[0], 0);
  const page = await (await getPage(t, s, frozen.headers.get("location")!)).text();
  assert.match(page, /name="frozen_0" checked/);
  assert.doesNotMatch(page, /name="frozen_1" checked/);
  assert.match(page, /Frozen regions \(none of their members flips\): 0\./);
  // a cap of 25 % of each region's 4 members: one flip each at most
  const capped = await postForm(t, s, "/console/tasks/spots/review", {
    ...SETTINGS,
    action: "relabel",
    budget_pct: "100",
    max_flips_pct: "25",
  });
  assert.equal(capped.status, 303, await capped.text());
  const c = await flips(runOf(capped)!);
  assert.equal(c.run.max_flips_per_region, 0.25);
  assert.ok(c.per.every((n: number) => n <= 1), `${c.per}`);
});
