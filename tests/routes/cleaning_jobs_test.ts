/**
 * The cleaning job routes beyond the walkthrough: approval under a real token, results page by page,
 * /get-new-jobs/ while a job computes, a write-back cut short and resumed, cells changed after the job ran,
 * and the default flag field of a detection.
 */
import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { type StoreApp, storeTest } from "../support/stores.ts";
import { until } from "../support/wait.ts";
import {
  approve,
  docsById,
  GAP_HOURS,
  getJson,
  imputeSeries,
  postRun,
  seedCleaningDemo,
  testRunner,
} from "./cleaning_support.ts";
import { login } from "./auth_fixtures.ts";
import { type CleaningInput, runCleaning } from "../../core/cleaning/run.ts";
import { JobQueue } from "../../services/cleaning/job_queue.ts";
import { JobRunner, type TaskRunner } from "../../services/cleaning/job_runner.ts";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Runs the series imputation to its end; the job and the cells it filled. */
async function imputedCells(t: StoreApp, runner: JobRunner) {
  const job = await postRun(t, imputeSeries);
  await runner.runOnce();
  const items = (await getJson(t, `/jobs/${job.job_id}/results`)).body.items as {
    _id: string;
    value: number;
  }[];
  return { job, items };
}

storeTest("cleaning jobs: approval under a real token records its subject, username and time", async (t) => {
  await seedCleaningDemo(t);
  const { runner, close } = testRunner(t);
  try {
    const token = (await login(t.app)).access_token as string;
    const { sub } = decodeJwt(token);
    const body = { data: "customer_churn", task: "impute", dtype: "tabular", method: "mean" };
    const job = await postRun(t, { ...body, params: { columns: ["age"] } }, token);
    assert.equal(job.created_by, sub);
    await runner.runOnce();
    assert.equal((await approve(t, { job_id: job.job_id })).status, 401);
    const before = Date.now();
    const res = await approve(t, { job_id: job.job_id, approval_info: { ticket: "DQ-7" } }, token);
    const after = Date.now();
    assert.equal(res.status, 200);
    const { approval } = await res.json();
    assert.equal(approval.approved_by, sub);
    assert.equal(approval.approved_by_username, "alice");
    assert.match(approval.approved_at, ISO);
    const at = Date.parse(approval.approved_at);
    assert.ok(before <= at && at <= after, `${approval.approved_at} not within the request`);
    const stored = await getJson(t, `/jobs/${job.job_id}`, token);
    assert.deepEqual(
      [stored.body.approval.approved_by, stored.body.approval.approved_at],
      [sub, approval.approved_at],
    );
  } finally {
    await close();
  }
}, { auth: true });

// Results pages hold at most 500 entries, so 2,000 rows of detection results make at least ⌈2000/500⌉ = 4.
storeTest(
  "cleaning jobs: 2,000 rows of results page by page; past the last page is 404 on both routes",
  async (t) => {
    await seedCleaningDemo(t);
    const { runner, close } = testRunner(t);
    try {
      const columns = ["tenure_months", "support_calls"];
      const job = await postRun(t, {
        data: "customer_churn",
        task: "detect",
        dtype: "tabular",
        method: "ecod",
        params: { columns },
      });
      const id = job.job_id;
      const queued = await getJson(t, `/jobs/${id}?page=2`);
      assert.deepEqual([queued.status, queued.body.results], [200, null]); // no results yet: nothing to be past
      await runner.runOnce();
      const first = await getJson(t, `/jobs/${id}`);
      const { pages, total } = first.body.results;
      assert.equal(total, 2000);
      assert.ok(pages >= 4, `pages ${pages}`);
      const seen = new Map<string, number>();
      const pageIds: string[][] = [];
      for (let p = 1; p <= pages; p++) {
        const r = await getJson(t, `/jobs/${id}/results?page=${p}`);
        assert.deepEqual([r.status, r.body.page, r.body.pages], [200, p, pages]);
        pageIds.push(r.body.items.map((e: { _id: string }) => e._id));
        for (const e of r.body.items) seen.set(e._id, (seen.get(e._id) ?? 0) + 1);
      }
      const docs = await docsById(t, "customer_churn");
      assert.deepEqual([...seen.keys()].sort(), [...docs.keys()].sort()); // every row…
      assert.ok([...seen.values()].every((n) => n === 1)); // …exactly once
      const two = await getJson(t, `/jobs/${id}?page=2`);
      const twoResults = await getJson(t, `/jobs/${id}/results?page=2`);
      assert.equal(two.status, 200);
      assert.equal(two.body.results.page, 2);
      assert.deepEqual(two.body.results.items, twoResults.body.items);
      assert.ok(pageIds[1].length > 0 && pageIds[1].every((x) => !pageIds[0].includes(x)));
      const last1 = first.body.results.items.at(-1).score, first2 = twoResults.body.items[0].score;
      assert.ok(last1 >= first2, "most anomalous first, across pages");
      for (const path of [`/jobs/${id}?page=${pages + 1}`, `/jobs/${id}/results?page=${pages + 1}`]) {
        const r = await getJson(t, path);
        assert.equal(r.status, 404, path);
        assert.equal(r.body.detail, `page ${pages + 1} does not exist: the results have ${pages} pages`);
      }

      // No gaps in tenure_months: an empty result still has its page 1, and nothing past it.
      const none = await postRun(t, {
        data: "customer_churn",
        task: "impute",
        dtype: "tabular",
        method: "mean",
        params: { columns: ["tenure_months"] },
      });
      await runner.runOnce();
      const empty = await getJson(t, `/jobs/${none.job_id}`);
      assert.deepEqual([empty.status, empty.body.results.items, empty.body.results.total], [200, [], 0]);
      assert.deepEqual((await getJson(t, `/jobs/${none.job_id}/results?page=1`)).body.items, []);
      assert.equal((await getJson(t, `/jobs/${none.job_id}?page=2`)).status, 404);
      assert.equal((await getJson(t, `/jobs/${none.job_id}/results?page=2`)).status, 404);
    } finally {
      await close();
    }
  },
);

storeTest(
  "cleaning jobs: /get-new-jobs/ lists a job while it computes, not once it succeeded or failed",
  async (t) => {
    await seedCleaningDemo(t);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let computing = false;
    const pool: TaskRunner = {
      async run<T>(_task: string, payload: unknown): Promise<T> {
        computing = true;
        await gate;
        return runCleaning(payload as CleaningInput) as T;
      },
    };
    const runner = new JobRunner(t.store, t.config.TESSERA_DB, pool, {
      leaseMs: 10_000,
      pollMs: 50,
      timeoutMs: 60_000,
      maxAttempts: 3,
      concurrency: 1,
    });
    const job = await postRun(t, imputeSeries);
    const done = runner.runOnce();
    await until("the computation to start", () => computing);
    const listed = (await getJson(t, "/get-new-jobs/")).body;
    assert.deepEqual(listed.map((j: { job_id: string; status: string }) => [j.job_id, j.status]), [[
      job.job_id,
      "running",
    ]]);
    assert.equal(listed[0].progress, 0.4); // data loaded, computing
    assert.equal(listed[0].summary, null);
    release();
    assert.equal(await done, job.job_id);
    assert.equal((await getJson(t, `/jobs/${job.job_id}`)).body.status, "succeeded");
    assert.deepEqual((await getJson(t, "/get-new-jobs/")).body, []);
    // 'seasonal' cannot infer a cycle from tenure_months used as a clock: the job fails, and is not listed
    const bad = await postRun(t, {
      data: "customer_churn",
      task: "impute",
      dtype: "timeseries",
      method: "seasonal",
      date_col: "tenure_months",
      params: { columns: ["age"] },
    });
    await runner.runOnce();
    assert.equal((await getJson(t, `/jobs/${bad.job_id}`)).body.status, "failed");
    assert.deepEqual((await getJson(t, "/get-new-jobs/")).body, []);
  },
);

storeTest(
  "cleaning jobs: a write-back whose writer died is resumed by the next approval, not a 409 forever",
  async (t) => {
    await seedCleaningDemo(t);
    const { runner, close } = testRunner(t);
    try {
      const { job, items } = await imputedCells(t, runner);
      assert.equal(items.length, GAP_HOURS);
      // What a process killed mid-write leaves: the approval recorded, its write-back running, five cells written.
      const queue = new JobQueue(t.store, t.config.TESSERA_DB);
      const stale = new Date(Date.now() - 2 * t.config.JOB_LEASE_SECONDS * 1000).toISOString();
      const approval = {
        approved_by: "reviewer-1",
        approved_by_username: "rita",
        approved_at: stale,
        approval_info: { note: "first" },
        write_back: { state: "running", started_at: stale, heartbeat_at: new Date().toISOString() },
      };
      assert.ok(await queue.approve(job.job_id, approval, "dead-process"));
      const ref = { db: t.db, collection: "sensor_readings" };
      await t.store.updateFields(
        ref,
        items.slice(0, 5).map((e) => ({ id: e._id, set: { temperature: e.value } })),
      );

      const busy = await approve(t, { job_id: job.job_id }); // heard of just now: the writer may be alive
      assert.equal(busy.status, 409);
      assert.match((await busy.json()).detail, /write-back is running .* approving again from .* resumes it/);

      const silent = { ...approval, write_back: { ...approval.write_back, heartbeat_at: stale } };
      assert.ok(await queue.setWriteBack(job.job_id, "dead-process", silent, false)); // a lease without a heartbeat
      const res = await approve(t, { job_id: job.job_id, approval_info: { note: "second" } });
      assert.equal(res.status, 200, await res.clone().text());
      const resumed = (await res.json()).approval;
      assert.deepEqual([resumed.approved_by, resumed.approval_info], ["reviewer-1", { note: "first" }]);
      const wb = resumed.write_back;
      assert.deepEqual(
        [wb.state, wb.already_written, wb.cells_written, wb.skipped_changed, wb.resumed_by],
        ["done", 5, GAP_HOURS - 5, 0, "anonymous"],
      );
      assert.match(wb.resumed_at, ISO);
      const docs = await docsById(t, "sensor_readings");
      assert.ok(items.every((e) => docs.get(e._id)?.temperature === e.value));
      assert.equal([...docs.values()].filter((d) => d.temperature === null).length, 0);
      const stored = await queue.get(job.job_id);
      assert.deepEqual([stored?.write_back_owner, stored?.approval?.write_back.state], [null, "done"]);
      const again = await approve(t, { job_id: job.job_id });
      assert.equal(again.status, 409);
      assert.match((await again.json()).detail, /approved already/);
    } finally {
      await close();
    }
  },
);

storeTest(
  "cleaning jobs: a cell changed after the job ran is kept and reported; detections flag is_anomaly",
  async (t) => {
    await seedCleaningDemo(t);
    const { runner, close } = testRunner(t);
    try {
      const { job, items } = await imputedCells(t, runner);
      const changed = items[3]._id; // someone fixed this reading by hand meanwhile
      await t.store.updateFields({ db: t.db, collection: "sensor_readings" }, [{
        id: changed,
        set: { temperature: 99.5 },
      }]);
      const res = await approve(t, { job_id: job.job_id });
      const wb = (await res.json()).approval.write_back;
      assert.deepEqual([wb.cells_written, wb.skipped_changed, wb.already_written], [GAP_HOURS - 1, 1, 0]);
      const docs = await docsById(t, "sensor_readings");
      assert.equal(docs.get(changed)?.temperature, 99.5);
      assert.ok(items.every((e) => e._id === changed || docs.get(e._id)?.temperature === e.value));

      const detect = await postRun(t, {
        data: "customer_churn",
        task: "detect",
        dtype: "tabular",
        method: "zscore",
        params: { columns: ["support_calls", "data_usage_gb"] },
      });
      await runner.runOnce();
      const { summary } = (await getJson(t, `/jobs/${detect.job_id}`)).body;
      assert.ok(summary.anomalies > 0);
      assert.equal((await approve(t, { job_id: detect.job_id })).status, 200);
      const rows = [...(await docsById(t, "customer_churn")).values()];
      assert.ok(rows.every((d) => typeof d.is_anomaly === "boolean"));
      assert.equal(rows.filter((d) => d.is_anomaly).length, summary.anomalies);
      const catalogue = (await getJson(t, "/dataset/customer_churn")).body;
      assert.ok(
        catalogue.columns.some((c: { name: string; type: string }) =>
          c.name === "is_anomaly" && c.type === "boolean"
        ),
      );
    } finally {
      await close();
    }
  },
);
