/**
 * Undoing a spatial write-back (issue 37): every document as it was before, a document changed since
 * skipped and listed, twice changes nothing, newest first, and each decision logged once. Values by hand.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../support/stores.ts";
import { jsonBody } from "../support/app.ts";
import type { Doc } from "../../store/store.ts";
import { WritebackJournal } from "../../services/mitigation/writeback_journal.ts";
import { recoverWritebacks } from "../../services/mitigation/writeback_recovery.ts";
import { writebackPagesRef, writebacksRef } from "../../services/mitigation/writeback_log.ts";

const URL_BASE = "/api/spatial-hitl/task/preds/mitigate/writeback";

/** Five documents without `fair`, a task over them, and how to write, undo and read them. */
async function setUp(t: StoreApp) {
  const ref = { db: t.db, collection: "preds" };
  const ids = await t.store.insertMany(ref, [0, 1, 0, 1, 0].map((y, i) => ({ y_pred: y, n: i })));
  await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: "preds" }),
  );
  const docs = async () => {
    const out: Doc[] = [];
    for await (const b of t.store.stream(ref)) out.push(...b);
    return out.map(({ _id, ...d }) => d);
  };
  const write = async (values: number[]) => {
    const preds = values.map((y_pred, i) => ({ doc_id: ids[i], y_pred }));
    const res = await t.app.request(URL_BASE, jsonBody("POST", { new_field: "fair", preds }));
    assert.equal(res.status, 200, await res.clone().text());
    return await res.json();
  };
  const undo = (id: string) => t.app.request(`${URL_BASE}/${id}/undo`, { method: "POST" });
  return { ref, ids, docs, write, undo };
}

storeTest(
  "writeback undo: restores every document, skips one changed since, and twice changes nothing",
  async (t) => {
    const { ref, ids, docs, write, undo } = await setUp(t);
    const before = await docs();
    const wb = await write([1, 1, 0, 0]); // the fifth document is not listed
    assert.match(wb.writeback_id, /^[0-9a-f]{24}$/);
    assert.deepEqual((await docs()).map((d) => d.fair), [1, 1, 0, 0, undefined]);
    await t.store.patch(ref, ids[1], { fair: 7 }); // someone else's change after the write-back
    const res = await undo(wb.writeback_id);
    assert.equal(res.status, 200, await res.clone().text());
    const answer = await res.json();
    assert.deepEqual(
      [answer.restored, answer.skipped, answer.skipped_count, answer.missing, answer.new_field],
      [3, [ids[1]], 1, 0, "fair"],
    );
    assert.deepEqual(answer.undone_by, { sub: "anonymous", username: null });
    const after = await docs();
    assert.deepEqual(after, before.map((d, i) => i === 1 ? { ...d, fair: 7 } : d));
    // again: the same answer, nothing changed, nothing logged again
    const again = await undo(wb.writeback_id);
    assert.deepEqual(await again.json(), answer);
    assert.deepEqual(await docs(), after);
    const log = await (await t.app.request("/api/decisions?task=preds")).json();
    assert.deepEqual(
      log.decisions.map((e: { kind: string; writeback_id: string }) => [e.kind, e.writeback_id]),
      [["writeback_undo", wb.writeback_id], ["writeback", wb.writeback_id]],
    );
    // the task's history marks it undone; its pages of previous values are gone with the need for them
    const task = await (await t.app.request("/api/tasks/document/preds")).json();
    assert.equal(task.last_writeback.undone_at, answer.undone_at);
    assert.equal(await t.store.count(writebackPagesRef(t.config.TESSERA_DB)), 0);
    const [undone, written] = log.decisions;
    assert.deepEqual(written.counts, { matched: 4, modified: 4, not_found: 0 });
    assert.deepEqual([written.field, written.dataset, written.database, written.facts.lines], [
      "fair",
      "preds",
      t.db,
      4,
    ]);
    assert.deepEqual(undone.counts, { restored: 3, skipped: 1, missing: 0 });
  },
);

storeTest(
  "writeback undo: a later write-back of the field is undone first, and restores the earlier one's values",
  async (t) => {
    const { docs, write, undo } = await setUp(t);
    const before = await docs();
    const first = await write([1, 0, 1, 0, 1]);
    const afterFirst = await docs();
    const second = await write([0, 0, 0, 1, 1]);
    const early = await undo(first.writeback_id);
    assert.equal(early.status, 409);
    assert.match((await early.json()).detail, new RegExp(`${second.writeback_id}.*undo it first`));
    const r2 = await (await undo(second.writeback_id)).json();
    assert.deepEqual([r2.restored, r2.skipped_count], [5, 0]);
    assert.deepEqual(await docs(), afterFirst);
    const r1 = await (await undo(first.writeback_id)).json();
    assert.deepEqual([r1.restored, r1.skipped_count], [5, 0]);
    assert.deepEqual(await docs(), before);
  },
);

storeTest("writeback undo: unknown or another task's write-back is a 404 naming writeback_id", async (t) => {
  const { write, undo } = await setUp(t);
  const wb = await write([1]);
  await t.app.request(
    "/api/tasks/documents",
    jsonBody("POST", { database_name: t.db, data_collection_name: "other" }),
  );
  for (
    const res of [
      await undo("000000000000000000000000"),
      await t.app.request(`/api/spatial-hitl/task/other/mitigate/writeback/${wb.writeback_id}/undo`, {
        method: "POST",
      }),
    ]
  ) {
    assert.equal(res.status, 404);
    assert.deepEqual((await res.json()).detail[0].loc, ["path", "writeback_id"]);
  }
});

storeTest(
  "writeback: one cut off by a dead process is rolled back, not logged, and cannot be undone",
  async (t) => {
    const { ref, ids, docs, undo } = await setUp(t);
    const before = await docs();
    await t.store.patch(ref, ids[2], { fair: 5 }); // a value the write-back replaces: it must come back
    const withFive = await docs();
    assert.notDeepEqual(withFive, before);
    const leaseMs = 150;
    const subject = {
      task: "preds",
      target: ref,
      field: "fair",
      runId: null,
      who: { sub: "u", username: null },
      facts: {},
    };
    const journal = await WritebackJournal.begin(t.store, t.config.TESSERA_DB, subject, leaseMs);
    const before2 = new Map(ids.map((id, i) => [id, i === 2 ? { value: 5 } : null]));
    async function* lines() {
      yield ids.map((doc_id) => ({ doc_id, y_pred: 1 }));
    }
    await journal.write(lines(), before2);
    journal.crash(); // what a dead process does: stops renewing its lease, mid-way
    assert.deepEqual((await docs()).map((d) => d.fair), [1, 1, 1, 1, 1]);
    const id = journal.rec._id;
    const live = await undo(id);
    assert.equal(live.status, 409, "its lease still runs: it may be alive");
    await new Promise((r) => setTimeout(r, leaseMs + 50));
    assert.equal(await recoverWritebacks(t.store, t.config.TESSERA_DB, { leaseMs, task: "preds" }), 1);
    assert.deepEqual(await docs(), withFive);
    const rec = await t.store.get(writebacksRef(t.config.TESSERA_DB), id);
    assert.equal(rec?.state, "rolled_back");
    const res = await undo(id);
    assert.equal(res.status, 409);
    assert.match((await res.json()).detail, /rolled back/);
    const log = await (await t.app.request(`/api/decisions?task=preds`)).json();
    assert.deepEqual(log.decisions, []);
  },
);
