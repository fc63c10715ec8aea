/**
 * What the console's job page reads beside the result pages (services/cleaning/review.ts): a time-series
 * job's series in time order with its filled or flagged points, and the current values of result rows.
 * The jobs and their results are written by hand here, so every expected row and mark is known.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../../support/stores.ts";
import { JobQueue, type JobRecord } from "../../../services/cleaning/job_queue.ts";
import { writeResults } from "../../../services/cleaning/job_results.ts";
import { currentRows, jobSeries } from "../../../services/cleaning/review.ts";
import { importRecords } from "../../../services/datasets/import.ts";

const deps = (t: StoreApp) => ({ store: t.store, config: t.config });

async function* rows<T>(it: Iterable<T>) {
  yield* it;
}

/** Five hourly readings stored out of time order, one without a date; t at hour 2 missing. */
const READINGS = [
  { ts: "2026-01-01T03:00:00Z", t: 13, u: 1 },
  { ts: "2026-01-01T00:00:00Z", t: 10, u: 2 },
  { ts: "2026-01-01T02:00:00Z", t: null, u: 3 },
  { ts: null, t: 99, u: 4 },
  { ts: "2026-01-01T01:00:00Z", t: 11, u: 5 },
];

/** The readings as a dataset, and their ids in stored order. */
async function seed(t: StoreApp): Promise<string[]> {
  await importRecords(t.store, t.config.TESSERA_DB, { db: t.db, collection: "series" }, rows(READINGS));
  const docs = await t.store.list({ db: t.db, collection: "series" });
  return docs.map((d) => d._id);
}

/** A succeeded job of that task over the readings, with these result entries. */
async function finished(
  t: StoreApp,
  task: "impute" | "detect",
  entries: Record<string, unknown>[],
  columns = ["t"],
): Promise<JobRecord> {
  const q = new JobQueue(t.store, t.config.TESSERA_DB);
  await q.create({
    task,
    dtype: "timeseries",
    method: task === "impute" ? "linear" : "quantile",
    params: {},
    date_col: "ts",
    data: "series",
    database: t.db,
    collection: "series",
    columns,
    rows: READINGS.length,
    created_by: "test",
    client_id: null,
  });
  const job = (await q.claim("runner", 60_000, 3))!;
  const meta = await writeResults(t.store, t.config.TESSERA_DB, job, entries);
  assert.ok(await q.succeed(job, {}, meta));
  return (await q.get(job._id))!;
}

const hour = (h: number) => Date.UTC(2026, 0, 1, h);

storeTest("jobSeries: an imputation's series in time order, its filled cell marked", async (t) => {
  const ids = await seed(t);
  const job = await finished(t, "impute", [{ _id: ids[2], column: "t", value: 12, original: null }]);
  const s = (await jobSeries(deps(t), job))!;
  assert.deepEqual([...s.times], [hour(0), hour(1), hour(2), hour(3)]);
  assert.equal(s.undated, 1);
  assert.deepEqual(s.columns.map((c) => c.name), ["t"]);
  assert.deepEqual([...s.columns[0].values], [10, 11, NaN, 13]);
  // the stored third document is hour 2, the third in time order
  assert.deepEqual(s.marks, [{ column: "t", row: 2, value: 12, kind: "filled" }]);
  assert.equal(s.marksTruncated, false);
});

storeTest(
  "jobSeries: a detection marks the flagged readings (their columns, or all) up to the first unflagged",
  async (t) => {
    const ids = await seed(t);
    const job = await finished(t, "detect", [
      { _id: ids[0], label: 1, score: 9, columns: ["u"] }, // hour 3, flagged in u only
      { _id: ids[1], label: 1, score: 8 }, // hour 0, every column
      { _id: ids[4], label: 0, score: 1 },
      { _id: ids[2], label: 1, score: 0 }, // after an unflagged entry: never read
    ], ["t", "u"]);
    const s = (await jobSeries(deps(t), job))!;
    assert.deepEqual(s.marks, [
      { column: "u", row: 3, value: 1, kind: "anomaly" },
      { column: "t", row: 0, value: 10, kind: "anomaly" },
      { column: "u", row: 0, value: 2, kind: "anomaly" },
    ]);
    // at most maxMarks marks, and it says so
    const few = (await jobSeries(deps(t), job, 2))!;
    assert.equal(few.marks.length, 2);
    assert.equal(few.marksTruncated, true);
  },
);

storeTest("jobSeries: none for a tabular job or one without results", async (t) => {
  await seed(t);
  const job = await finished(t, "impute", []);
  assert.equal(await jobSeries(deps(t), { ...job, dtype: "tabular" }), null);
  assert.equal(await jobSeries(deps(t), { ...job, results: null }), null);
});

storeTest(
  "currentRows: the job's columns and date of each row asked for; a missing row is absent",
  async (t) => {
    const ids = await seed(t);
    const job = await finished(t, "impute", []);
    const got = await currentRows(deps(t), job, [ids[2], ids[1], ids[2], "no-such-row"]);
    assert.deepEqual([...got.keys()].sort(), [ids[1], ids[2]].sort());
    assert.deepEqual(got.get(ids[2]), { t: null, ts: "2026-01-01T02:00:00Z" });
    assert.deepEqual(got.get(ids[1]), { t: 10, ts: "2026-01-01T00:00:00Z" });
  },
);
