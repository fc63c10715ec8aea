/**
 * Rejecting a cleaning job (the review console's "Reject"): a succeeded job becomes `rejected`, keeps who
 * rejected it and why, can never be approved (so nothing is written back), and only a succeeded,
 * unreviewed job can be rejected; of a rejection and an approval racing, exactly one is recorded.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../../support/stores.ts";
import { JobQueue, type JobRecord } from "../../../services/cleaning/job_queue.ts";
import { approve, getJob, listJobs, reject } from "../../../services/cleaning/jobs.ts";
import { ConflictError } from "../../../core/errors.ts";

const deps = (t: StoreApp) => ({ store: t.store, config: t.config });
const who = (sub: string) => ({ sub, username: sub });

/** A queued job over a dataset that does not exist (nothing here reads it). */
function newJob(q: JobQueue, t: StoreApp): Promise<JobRecord> {
  return q.create({
    task: "impute",
    dtype: "tabular",
    method: "mean",
    params: {},
    date_col: null,
    data: "none",
    database: t.db,
    collection: "none",
    columns: ["x"],
    rows: 0,
    created_by: "test",
    client_id: null,
  });
}

/** The job claimed and finished with no results. */
async function succeeded(q: JobQueue, t: StoreApp): Promise<JobRecord> {
  const job = await newJob(q, t);
  const run = await q.claim("runner", 60_000, 3);
  assert.ok(await q.succeed(run!, {}, { attempt: 1, pages: 0, total: 0 }));
  return (await q.get(job._id))!;
}

const conflict = (pattern: RegExp) => (e: Error) => e instanceof ConflictError && pattern.test(e.message);

storeTest("reject: a succeeded job becomes rejected, with who, when and why", async (t) => {
  const q = new JobQueue(t.store, t.config.TESSERA_DB);
  const job = await succeeded(q, t);
  const before = Date.now();
  const out = await reject(deps(t), { jobId: job.job_id, reason: "  values look off  ", who: who("ann") });
  assert.equal(out.status, "rejected");
  const stored = await getJob(deps(t), job.job_id);
  assert.equal(stored.status, "rejected");
  assert.equal(stored.approval, null);
  assert.equal(stored.rejection?.rejected_by, "ann");
  assert.equal(stored.rejection?.rejected_by_username, "ann");
  assert.equal(stored.rejection?.reason, "values look off");
  assert.ok(Date.parse(stored.rejection!.rejected_at) >= before - 1000);
  // an empty reason is no reason
  const other = await succeeded(q, t);
  assert.equal(
    (await reject(deps(t), { jobId: other.job_id, reason: " ", who: who("bob") })).rejection?.reason,
    null,
  );
});

storeTest("reject: a rejected job can be neither approved nor rejected again", async (t) => {
  const q = new JobQueue(t.store, t.config.TESSERA_DB);
  const job = await succeeded(q, t);
  await reject(deps(t), { jobId: job.job_id, reason: null, who: who("ann") });
  await assert.rejects(
    () => approve(deps(t), { jobId: job.job_id, approvalInfo: {}, who: who("bob") }),
    conflict(/was rejected by ann at .*never written back/),
  );
  await assert.rejects(
    () => reject(deps(t), { jobId: job.job_id, reason: null, who: who("bob") }),
    conflict(/rejected already, by ann/),
  );
  assert.equal((await getJob(deps(t), job.job_id)).rejection?.rejected_by, "ann");
});

storeTest("reject: only a succeeded job that nobody approved can be rejected", async (t) => {
  const q = new JobQueue(t.store, t.config.TESSERA_DB);
  const done = await succeeded(q, t);
  const queued = await newJob(q, t);
  await assert.rejects(
    () => reject(deps(t), { jobId: queued.job_id, reason: null, who: who("ann") }),
    conflict(/is queued: only a finished \(succeeded\) job can be rejected/),
  );
  // approved without a write-back (write_back: false), so nothing needs the missing dataset
  await approve(deps(t), { jobId: done.job_id, approvalInfo: { write_back: false }, who: who("ann") });
  await assert.rejects(
    () => reject(deps(t), { jobId: done.job_id, reason: null, who: who("bob") }),
    conflict(/was approved by ann .*cannot be rejected/),
  );
  assert.equal((await getJob(deps(t), done.job_id)).status, "succeeded");
  await assert.rejects(
    () => reject(deps(t), { jobId: "no-such-job", reason: null, who: who("ann") }),
    (e: Error) => e.name === "NotFoundError",
  );
});

storeTest("reject: of a rejection and an approval racing, exactly one is recorded", async (t) => {
  const q = new JobQueue(t.store, t.config.TESSERA_DB);
  for (let round = 0; round < 4; round++) {
    const job = await succeeded(q, t);
    const results = await Promise.allSettled([
      reject(deps(t), { jobId: job.job_id, reason: null, who: who("ann") }),
      approve(deps(t), { jobId: job.job_id, approvalInfo: { write_back: false }, who: who("bob") }),
    ]);
    const won = results.filter((r) => r.status === "fulfilled").length;
    const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
    assert.equal(won, 1, `round ${round}: one of the two is recorded`);
    assert.ok(lost[0].reason instanceof ConflictError, String(lost[0].reason));
    const stored = await getJob(deps(t), job.job_id);
    // never both: a rejected job has no approval, an approved one is still succeeded
    assert.ok(
      (stored.status === "rejected" && stored.approval === null) ||
        (stored.status === "succeeded" && stored.approval !== null && !stored.rejection),
    );
  }
});

storeTest("listJobs: every job, newest first", async (t) => {
  const times = ["2026-03-01T10:00:00.000Z", "2026-03-01T12:00:00.000Z", "2026-03-01T11:00:00.000Z"];
  let i = 0;
  const q = new JobQueue(t.store, t.config.TESSERA_DB, () => Date.parse(times[i++]));
  const ids = [];
  for (let k = 0; k < 3; k++) ids.push((await newJob(q, t)).job_id);
  assert.deepEqual((await listJobs(deps(t))).map((j) => j.job_id), [ids[1], ids[2], ids[0]]);
  assert.deepEqual((await listJobs(deps(t), 2)).map((j) => j.job_id), [ids[1], ids[2]]);
});
