/**
 * The review page's Cancel button without a browser (app.request), on both stores: the page names the
 * next mitigation's run (a hidden Cancel form with its id, and the address of its progress); a relabel
 * sent with that id is followed (state, phase) and cancelled through the console, and its own answer is
 * the page saying so, within a second; an id sent twice is refused. Needs workers (not run inline).
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../support/stores.ts";
import { createTaskDocument } from "../../services/tasks/task_documents.ts";
import { getPage, postForm, type Session, signIn } from "../support/console_session.ts";
import { unfinishedExactRows } from "../support/long_mitigation.ts";

const inline = Deno.env.get("WORKERS") === "0";

async function setUp(t: StoreApp, rows: Record<string, unknown>[]): Promise<Session> {
  await t.store.insertMany({ db: t.db, collection: "long" }, rows);
  await createTaskDocument(t, { database_name: t.db, data_collection_name: "long", status: "pending" });
  return await signIn(t, "long");
}

const get = getPage, post = postForm;

/** The review form's fields for an exact relabel of the whole collection, 30 s at most. */
const RELABEL = {
  action: "relabel",
  map_y_pred: "y_pred",
  map_region_ids: "region_ids",
  equal_opp: "false",
  n_worlds: "19",
  approx: "false",
  work_limit: "30",
  budget_pct: "20",
  tolerance_pct: "10",
};

/** The Cancel form of the task's page: the run id it names, where it posts, where progress is read. */
async function cancelForm(t: StoreApp, s: Session) {
  const page = await (await get(t, s, "/console/tasks/long")).text();
  const form = /<form[^>]*class="cancel-run"[^>]*>/.exec(page)?.[0];
  assert.ok(form, "the page has a Cancel form");
  // its button sits in the settings form, above the status line, hidden until the script shows it
  const settings = page.slice(page.indexOf('class="review-form"'), page.indexOf("data-busy-status"));
  assert.match(
    settings,
    /<div class="form-actions cancel-run-actions" hidden="">\s*<button type="submit" form="cancel-run"/,
  );
  const attr = (name: string) => new RegExp(`${name}="([^"]+)"`).exec(form)![1];
  return { runId: attr("data-run-id"), action: attr("action"), progress: attr("data-progress") };
}

storeTest(
  "console review: a relabel sent with the page's run id is followed and cancelled from the page",
  async (t) => {
    const s = await setUp(t, unfinishedExactRows());
    const { runId, action, progress } = await cancelForm(t, s);
    assert.match(runId, /^[0-9a-f]{24}$/);
    assert.equal(action, `/console/tasks/long/runs/${runId}/cancel`);
    assert.equal(progress, `/console/tasks/long/runs/${runId}/progress`);
    assert.notEqual((await cancelForm(t, s)).runId, runId, "each page names a new run");

    const pending = post(t, s, "/console/tasks/long/review", { ...RELABEL, run_id: runId });
    let p: Record<string, unknown> = {};
    for (
      const until = Date.now() + 30_000;
      p.phase !== "exact search";
      await new Promise((r) => setTimeout(r, 50))
    ) {
      assert.ok(Date.now() < until, `not solving: ${JSON.stringify(p)}`);
      const res = await get(t, s, progress);
      if (res.status === 200) p = await res.json();
      else await res.body?.cancel();
    }
    // the search reports its incumbent and the root's bound every 1,024 nodes: null before the first report
    assert.deepEqual({ ...p, phase: "", objective: null, bound: null }, {
      run_id: runId,
      kind: "relabel",
      state: "running",
      phase: "",
      objective: null,
      bound: null,
    });
    if (p.objective !== null) assert.ok(Number(p.bound) <= Number(p.objective));

    const asked = performance.now();
    const cancelled = await post(t, s, action, {});
    const answer = await pending;
    assert.ok(performance.now() - asked < 1000, `${performance.now() - asked} ms`);
    assert.equal(cancelled.status, 303);
    assert.equal(cancelled.headers.get("location"), `/console/tasks/long?cancelled=${runId}`);
    // the relabel's own answer: the page again, its settings kept, saying it was cancelled
    assert.equal(answer.status, 409);
    const page = await answer.text();
    assert.match(page, /The mitigation was cancelled before it finished: nothing of it was kept\./);
    assert.match(page, /class="review-form"/);
    const next = /class="cancel-run" data-run-id="([0-9a-f]{24})"/.exec(page)?.[1];
    assert.ok(next && next !== runId, "the page names a new run for the next mitigation");
    // nothing of it is left: no progress, no run, the cancel again not found
    assert.equal((await get(t, s, progress)).status, 404);
    assert.equal((await get(t, s, `/console/tasks/long/runs/${runId}`)).status, 404);
    assert.equal((await post(t, s, action, {})).status, 404);
    const notice = await (await get(t, s, `/console/tasks/long?cancelled=${runId}`)).text();
    assert.match(notice, /The mitigation was cancelled before it finished/);
  },
  { ignore: inline },
);

storeTest("console review: a run id sent twice is refused; a malformed one is not used", async (t) => {
  const s = await setUp(t, unfinishedExactRows().slice(0, 300));
  const { runId } = await cancelForm(t, s);
  const small = { ...RELABEL, approx: "true", work_limit: "5", run_id: runId };
  const first = await post(t, s, "/console/tasks/long/review", small);
  assert.equal(first.status, 303, await first.clone().text());
  assert.match(first.headers.get("location")!, new RegExp(`/runs/${runId}#result$`));
  const again = await post(t, s, "/console/tasks/long/review", small);
  assert.equal(again.status, 409);
  assert.match(await again.text(), new RegExp(`Run id &#39;${runId}&#39; is taken`));
  const odd = await post(t, s, "/console/tasks/long/review", { ...small, run_id: "../../x" });
  assert.equal(odd.status, 303);
  assert.match(odd.headers.get("location")!, /\/runs\/[0-9a-f]{24}#result$/);
});
