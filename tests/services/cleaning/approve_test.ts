/** approveJob's races: of two approvals one wins; a loser whose winner failed meanwhile is a 409, not a crash. */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../../support/stores.ts";
import { JobQueue, type JobRecord } from "../../../services/cleaning/job_queue.ts";
import { type ApprovalRequest, approveJob } from "../../../services/cleaning/approve.ts";
import { ConflictError } from "../../../core/errors.ts";

/** A succeeded job with no results, over no dataset: approvals without a write-back are all it needs. */
async function succeededJob(t: StoreApp, q: JobQueue): Promise<JobRecord> {
  const job = await q.create({
    task: "detect",
    dtype: "tabular",
    method: "zscore",
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
  const run = await q.claim("runner", 60_000, 3);
  assert.ok(await q.succeed(run!, {}, { attempt: 1, pages: 0, total: 0 }));
  return (await q.get(job._id))!;
}

const asked = (sub: string): ApprovalRequest => ({
  info: { write_back: false, by: sub },
  plan: null,
  resume: false,
  who: { sub, username: sub },
  leaseMs: 30_000,
});

storeTest("approveJob: of two concurrent approvals one is recorded, the other is a 409", async (t) => {
  const q = new JobQueue(t.store, t.config.TESSERA_DB);
  const job = await succeededJob(t, q);
  const results = await Promise.allSettled([
    approveJob(q, job, asked("ann")),
    approveJob(q, job, asked("bob")),
  ]);
  const won = results.filter((r) => r.status === "fulfilled");
  const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
  assert.deepEqual([won.length, lost.length], [1, 1]);
  assert.ok(lost[0].reason instanceof ConflictError);
  assert.match(lost[0].reason.message, /approved already/);
  const winner = (won[0] as PromiseFulfilledResult<JobRecord>).value.approval!.approved_by;
  assert.equal((await q.get(job._id))!.approval!.approved_by, winner);
});

storeTest(
  "approveJob: a loser that finds the winner's approval cleared again is a 409 to retry",
  async (t) => {
    const q = new JobQueue(t.store, t.config.TESSERA_DB);
    const job = await succeededJob(t, q);
    // The winner approves first; its write-back then fails, which clears the approval, just before the
    // loser reads the job again to say why it lost.
    assert.ok(await q.approve(job._id, approvalOf("ann"), "ann-owner"));
    const get = q.get.bind(q);
    q.get = async (id: string) => {
      await q.setWriteBack(id, "ann-owner", null, true);
      return await get(id);
    };
    await assert.rejects(
      () => approveJob(q, job, asked("bob")),
      (e: Error) => e instanceof ConflictError && /got there first; try again/.test(e.message),
    );
  },
);

/** An approval record as the winner would have written it, its write-back running. */
function approvalOf(sub: string) {
  const at = new Date().toISOString();
  return {
    approved_by: sub,
    approved_by_username: sub,
    approved_at: at,
    approval_info: {},
    write_back: { state: "running", started_at: at, heartbeat_at: at },
  };
}
