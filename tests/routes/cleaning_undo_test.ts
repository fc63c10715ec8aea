/**
 * Cleaning decisions in the decision log and the undo of an approval (issue 37), over five hand-made
 * rows: x = 1, 3, null, (absent), 5. The column mean of the present values is (1 + 3 + 5) / 3 = 3, so
 * the mean imputation fills row 3 (null) and row 4 (absent) with 3; the undo puts back null and absent.
 */
import assert from "node:assert/strict";
import { jsonRequest, type StoreApp, storeTest } from "../support/stores.ts";
import { approve, docsById, getJson, postRun, testRunner } from "./cleaning_support.ts";
import { importRecords } from "../../services/datasets/import.ts";
import { findDataset } from "../../services/datasets/registry.ts";
import { JobQueue } from "../../services/cleaning/job_queue.ts";
import { reject } from "../../services/cleaning/jobs.ts";

const ROWS = [{ k: 1, x: 1 }, { k: 2, x: 3 }, { k: 3, x: null }, { k: 4 }, { k: 5, x: 5 }];
const meanOfX = {
  data: "gaps",
  task: "impute",
  dtype: "tabular",
  method: "mean",
  params: { columns: ["x"] },
};

async function* asAsync<T>(it: Iterable<T>) {
  yield* it;
}

/** Imports the five rows as dataset `gaps`. */
async function seed(t: StoreApp) {
  await importRecords(t.store, t.config.TESSERA_DB, { db: t.db, collection: "gaps" }, asAsync(ROWS));
}

/** The dataset's documents keyed by `k` (ids are the store's). */
async function byK(t: StoreApp) {
  const docs = await docsById(t, "gaps");
  return new Map(
    [...docs.values()].map((d) => [d.k as number, d as { _id: string } & Record<string, unknown>]),
  );
}

const undo = (t: StoreApp, id: string) => t.app.request(`/approve/${id}/undo`, jsonRequest("POST", {}));

/** The log's entries of `kind` for job `id`. */
async function logged(t: StoreApp, kind: string, id: string) {
  const { status, body } = await getJson(t, `/api/decisions?kind=${kind}&job_id=${id}`);
  assert.equal(status, 200);
  assert.ok(body.decisions.every((e: { job_id: string }) => e.job_id === id));
  return body.decisions;
}

storeTest(
  "cleaning undo: approval logged once, undo restores null and absent exactly, twice is once",
  async (t) => {
    await seed(t);
    const { runner, close } = testRunner(t);
    try {
      const job = await postRun(t, meanOfX);
      await runner.runOnce();
      const { items } = (await getJson(t, `/jobs/${job.job_id}/results`)).body;
      const before = await byK(t);
      const byId = new Map([...before.values()].map((d) => [d._id, d.k]));
      const seen = items.map((
        e: Record<string, unknown>,
      ) => [byId.get(e._id as string), e.value, e.original_absent]);
      seen.sort((a: number[], b: number[]) => a[0] - b[0]);
      assert.deepEqual(seen, [[3, 3, false], [4, 3, true]]);
      assert.ok(!("x" in before.get(4)!) && before.get(3)!.x === null);

      const res = await approve(t, { job_id: job.job_id, approval_info: { ticket: "DQ-1" } });
      assert.equal(res.status, 200);
      const after = await byK(t);
      assert.deepEqual([after.get(3)!.x, after.get(4)!.x], [3, 3]);
      const [entry, ...more] = await logged(t, "cleaning_approval", job.job_id);
      assert.equal(more.length, 0, "logged once");
      assert.deepEqual([entry.dataset, entry.database, entry.field, entry.user.sub], [
        "gaps",
        t.db,
        "x",
        "anonymous",
      ]);
      assert.deepEqual(entry.counts, {
        matched: 2,
        modified: 2,
        missing: 0,
        cells_written: 2,
        already_written: 0,
        skipped_changed: 0,
      });
      assert.deepEqual([entry.facts.method, entry.facts.columns, entry.facts.approval_info], [
        "mean",
        ["x"],
        { ticket: "DQ-1" },
      ]);
      assert.deepEqual(entry.facts.write_back, {
        target: "same_fields",
        suffix: "_imputed",
        flagField: "is_anomaly",
        scoreField: null,
      });

      const first = await undo(t, job.job_id);
      assert.equal(first.status, 200, await first.clone().text());
      const answer = await first.json();
      assert.deepEqual([answer.restored, answer.skipped, answer.missing, answer.undone_by], [
        2,
        [],
        0,
        "anonymous",
      ]);
      assert.deepEqual(
        await byK(t),
        before,
        "every document as before the approval, absent and null included",
      );
      const again = await undo(t, job.job_id);
      assert.deepEqual([again.status, await again.json()], [200, answer]);
      assert.deepEqual(await byK(t), before);
      const undos = await logged(t, "cleaning_approval_undo", job.job_id);
      assert.equal(undos.length, 1, "the undo is logged once");
      assert.deepEqual([undos[0].counts.restored, undos[0].counts.skipped, undos[0].field], [2, 0, "x"]);
      const record = (await getJson(t, `/jobs/${job.job_id}`)).body;
      assert.equal(record.approval, null);
      assert.deepEqual(record.undone_approvals.map((a: { undo: { state: string } }) => a.undo.state), [
        "done",
      ]);

      // approved again: written again; then row 3 changed by hand, so the next undo leaves it and says so
      assert.equal((await approve(t, { job_id: job.job_id })).status, 200);
      assert.equal((await logged(t, "cleaning_approval", job.job_id)).length, 2);
      const row3 = (await byK(t)).get(3)!._id;
      await t.store.updateFields({ db: t.db, collection: "gaps" }, [{ id: row3, set: { x: 7 } }]);
      const second = await (await undo(t, job.job_id)).json();
      assert.deepEqual([second.restored, second.skipped], [1, [row3]]);
      const last = await byK(t);
      assert.deepEqual([last.get(3)!.x, "x" in last.get(4)!], [7, false]);
      assert.equal((await logged(t, "cleaning_approval_undo", job.job_id)).length, 2);
    } finally {
      await close();
    }
  },
);

storeTest("cleaning undo: an undo whose process died is finished by the next request", async (t) => {
  await seed(t);
  const { runner, close } = testRunner(t);
  try {
    const job = await postRun(t, meanOfX);
    await runner.runOnce();
    const before = await byK(t);
    assert.equal((await approve(t, { job_id: job.job_id })).status, 200);
    // what a process killed mid-undo leaves: the undo running under its owner, row 3 restored already
    const queue = new JobQueue(t.store, t.config.TESSERA_DB);
    const stored = (await queue.get(job.job_id))!;
    const at = new Date().toISOString();
    const undoing = {
      state: "running",
      started_at: at,
      heartbeat_at: at,
      undone_by: "rita",
      undone_by_username: "rita",
    };
    await t.store.patch({ db: t.config.TESSERA_DB, collection: "cleaning_jobs" }, job.job_id, {
      approval: { ...stored.approval, undo: undoing },
      undo_owner: "dead-process",
    });
    await t.store.updateFields({ db: t.db, collection: "gaps" }, [{
      id: before.get(3)!._id,
      set: { x: null },
    }]);
    const busy = await undo(t, job.job_id); // heard of just now: it may be alive
    assert.equal(busy.status, 409);
    assert.match((await busy.json()).detail, /undo of job .* is running .* undoing again from .* resumes it/);
    const stale = new Date(Date.now() - 2 * t.config.JOB_LEASE_SECONDS * 1000).toISOString();
    await t.store.patch({ db: t.config.TESSERA_DB, collection: "cleaning_jobs" }, job.job_id, {
      approval: { ...stored.approval, undo: { ...undoing, started_at: stale, heartbeat_at: stale } },
    });
    const res = await undo(t, job.job_id);
    assert.equal(res.status, 200, await res.clone().text());
    const answer = await res.json();
    assert.deepEqual([answer.restored, answer.skipped, answer.undone_by], [2, [], "rita"]);
    assert.deepEqual(await byK(t), before);
    const undos = await logged(t, "cleaning_approval_undo", job.job_id);
    assert.deepEqual(undos.map((e: { user: { sub: string } }) => e.user.sub), ["rita"]);
    assert.equal(undos[0].facts.resumed_by, "anonymous");
  } finally {
    await close();
  }
});

storeTest(
  "cleaning undo: refusals, a rejection logged once, new fields and an existing flag field",
  async (t) => {
    await seed(t);
    const { runner, close } = testRunner(t);
    try {
      const missing = await undo(t, "no-such-job");
      assert.equal(missing.status, 404);
      assert.match((await missing.json()).detail, /no job 'no-such-job'/);
      const job = await postRun(t, meanOfX);
      await runner.runOnce();
      const unapproved = await undo(t, job.job_id);
      assert.equal(unapproved.status, 409);
      assert.match((await unapproved.json()).detail, /not approved: there is no approval to undo/);

      const other = await postRun(t, meanOfX);
      await runner.runOnce();
      const deps = { store: t.store, config: t.config };
      await reject(deps, { jobId: other.job_id, reason: "too coarse", who: { sub: "u9", username: "vera" } });
      const rejections = await logged(t, "cleaning_rejection", other.job_id);
      assert.equal(rejections.length, 1);
      assert.deepEqual([rejections[0].user, rejections[0].facts.reason, rejections[0].dataset], [
        { sub: "u9", username: "vera" },
        "too coarse",
        "gaps",
      ]);
      const rejected = await undo(t, other.job_id);
      assert.deepEqual([rejected.status, (await rejected.json()).detail], [
        409,
        `job '${other.job_id}' was rejected, not approved: there is no approval to undo`,
      ]);

      // an approval whose write-back still runs is not undone; /openapi.json documents the route
      const busy = await postRun(t, meanOfX);
      await runner.runOnce();
      const at = new Date().toISOString();
      await new JobQueue(t.store, t.config.TESSERA_DB).approve(busy.job_id, {
        approved_by: "u1",
        approved_by_username: null,
        approved_at: at,
        approval_info: {},
        write_back: { state: "running", started_at: at, heartbeat_at: at },
      }, "live-writer");
      const running = await undo(t, busy.job_id);
      assert.equal(running.status, 409);
      assert.match((await running.json()).detail, /write-back of job .* is still running/);
      const doc = (await getJson(t, "/openapi.json")).body;
      assert.ok(doc.paths["/approve/{job_id}/undo"].post);

      // into new fields: x_imputed is created on rows 3 and 4, then removed, and leaves the registry again
      const before = await byK(t);
      const res = await approve(t, { job_id: job.job_id, approval_info: { target: "new_fields" } });
      assert.equal(res.status, 200);
      assert.deepEqual([(await byK(t)).get(3)!.x_imputed, (await byK(t)).get(4)!.x_imputed], [3, 3]);
      const answer = await (await undo(t, job.job_id)).json();
      assert.deepEqual([answer.restored, answer.fields_not_restored], [2, []]);
      assert.deepEqual(await byK(t), before);
      const rec = await findDataset(t.store, t.config.TESSERA_DB, "gaps");
      assert.ok(!rec!.columns.some((c) => c.name === "x_imputed"));

      // a detection flagging into `k`, a field the rows had: its values were not kept, so it stays as written
      const detect = await postRun(t, {
        data: "gaps",
        task: "detect",
        dtype: "tabular",
        method: "zscore",
        params: { columns: ["x"] },
      });
      await runner.runOnce();
      const flagged = await approve(t, {
        job_id: detect.job_id,
        approval_info: { flag_field: "k", score_field: "x_score" },
      });
      assert.equal(flagged.status, 200, await flagged.clone().text());
      const out = await (await undo(t, detect.job_id)).json();
      assert.deepEqual([out.restored, out.fields_not_restored], [5, ["k"]]);
      const docs = [...(await docsById(t, "gaps")).values()];
      assert.ok(docs.every((d) => typeof d.k === "boolean" && !("x_score" in d)));
    } finally {
      await close();
    }
  },
);
