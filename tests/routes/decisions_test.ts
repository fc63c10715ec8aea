import assert from "node:assert/strict";
import { jsonRequest, storeTest } from "../support/stores.ts";
import { taskDocumentsRef } from "../../services/tasks/task_documents.ts";
import { newEntry } from "../../services/decisions/entry.ts";
import { OUTBOX_HOMES, queuedIn } from "../../services/decisions/outbox.ts";
import { jobsRef } from "../../services/cleaning/job_queue.ts";
import { importsRef } from "../../services/datasets/import_log.ts";
import { writebacksRef } from "../../services/mitigation/writeback_log.ts";

const task = (name: string) => ({ database_name: "demo", data_collection_name: name, component: "spatial" });

storeTest("decisions: a status change is logged once, filtered and paged newest first", async (t) => {
  for (const name of ["loans", "other"]) {
    assert.equal((await t.app.request("/api/tasks/documents", jsonRequest("POST", task(name)))).status, 201);
  }
  const patch = (name: string, status: string) =>
    t.app.request(`/api/tasks/document/${name}`, jsonRequest("PATCH", { status }));
  assert.equal((await patch("loans", "running")).status, 200);
  assert.equal((await patch("other", "failed")).status, 200);
  const done = await (await patch("loans", "done")).json();
  assert.equal(done.decision_outbox, undefined, "the outbox's bookkeeping is not shown");
  const get = async (q: string) => {
    const res = await t.app.request(`/api/decisions${q}`);
    assert.equal(res.status, 200, q);
    return await res.json();
  };
  const all = await get("");
  assert.deepEqual(
    all.decisions.map((e: { task: string; facts: { status: string } }) => [e.task, e.facts.status]),
    [
      ["loans", "done"],
      ["other", "failed"],
      ["loans", "running"],
    ],
  );
  const first = all.decisions[2];
  assert.equal(first.kind, "task_status");
  assert.deepEqual(first.facts, { status: "running", previous_status: "pending" });
  assert.deepEqual(first.user, { sub: "anonymous", username: null });
  assert.equal(first.database, "demo");
  assert.equal(all.next, null);
  const loans = await get("?task=loans&limit=1");
  assert.deepEqual([loans.decisions.length, loans.decisions[0].facts.status], [1, "done"]);
  const older = await get(`?task=loans&limit=1&before=${loans.next}`);
  assert.deepEqual([older.decisions[0].facts.status, older.next], ["running", null]);
  assert.equal((await get("?kind=dataset_delete")).decisions.length, 0);
  assert.equal((await get("?user=anonymous")).decisions.length, 3);
  assert.equal((await get("?user=somebody")).decisions.length, 0);
  const after = encodeURIComponent(first.at);
  assert.ok((await get(`?from=${after}`)).decisions.length >= 1);
  assert.equal((await get(`?to=${after}`)).decisions.length, 0);
  for (const [q, field] of [["?limit=0", "limit"], ["?kind=nope", "kind"], ["?from=yesterday", "from"]]) {
    const res = await t.app.request(`/api/decisions${q}`);
    assert.equal(res.status, 422, q);
    assert.deepEqual((await res.json()).detail[0].loc, ["query", field]);
  }
  // an empty time range is an empty page (the schema cannot say `to` > `from`, so it is not refused)
  assert.deepEqual(await get(`?from=${after}&to=${after}`), { decisions: [], next: null });
  // no route changes or deletes an entry
  for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
    assert.equal((await t.app.request("/api/decisions", { method })).status, 405, method);
  }
});

storeTest("decisions: an entry a crash left in its decision's outbox is listed once", async (t) => {
  // the state a process dying between the decision's write and the drain leaves behind
  const entry = newEntry("task_status", { sub: "u1", username: "ann" }, {
    task: "t",
    facts: { status: "done" },
  });
  await t.store.put(taskDocumentsRef(t.config.TESSERA_DB), {
    _id: "t",
    ...task("t"),
    status: "done",
    ...queuedIn(entry),
  });
  for (let i = 0; i < 2; i++) {
    const page = await (await t.app.request("/api/decisions?task=t")).json();
    assert.deepEqual(page.decisions.map((e: { entry_id: string }) => e.entry_id), [entry._id]);
  }
  const doc = await t.store.get(taskDocumentsRef(t.config.TESSERA_DB), "t");
  assert.deepEqual([doc?.decision_outbox, doc?.decision_pending], [[], false]);
});

Deno.test("decisions: every outbox home is a collection its area writes", () => {
  const db = "x";
  const homes = [taskDocumentsRef(db), jobsRef(db), importsRef(db), writebacksRef(db)].map((r) =>
    r.collection
  );
  assert.deepEqual([...OUTBOX_HOMES].sort(), homes.sort());
});
