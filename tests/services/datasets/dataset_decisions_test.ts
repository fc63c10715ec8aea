/**
 * The decision log's dataset entries (services/datasets/dataset_decisions.ts), on both stores: an import,
 * an append, a replace and a delete are each logged once with hand-counted counts; an import rolled back
 * (by itself or by a recovery) and a refused delete are not logged; an import a crash left `committing`
 * and a delete a crash left `deleting` are finished by a recovery and logged once.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../../support/stores.ts";
import { importRecords } from "../../../services/datasets/import.ts";
import { ImportJournal } from "../../../services/datasets/import_journal.ts";
import { importsRef } from "../../../services/datasets/import_log.ts";
import { recoverImports } from "../../../services/datasets/import_recovery.ts";
import { datasetRecord, findDataset } from "../../../services/datasets/registry.ts";
import { deleteEntry, importEntry } from "../../../services/datasets/dataset_decisions.ts";
import { listDecisions } from "../../../services/decisions/list.ts";
import { queuedIn } from "../../../services/decisions/outbox.ts";
import { newId } from "../../../store/ids.ts";

const LEASE = 300;
const WHO = { sub: "u-7", username: "ann" };

/** The dataset's entries, oldest first. */
async function entries(t: StoreApp, dataset: string) {
  return (await listDecisions(t, { dataset, limit: 50 })).decisions.reverse();
}

/** POST /api/datasets/... with CSV text; the answer's JSON. */
async function post(t: StoreApp, name: string, csv: string, query = "") {
  const res = await t.app.request(`/api/datasets/${t.db}/${name}${query}`, {
    method: "POST",
    body: csv,
    headers: { "content-type": "text/csv" },
  });
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

/** Lets the head's lease run out, as when its holder died. */
async function expire(t: StoreApp, name: string) {
  await t.store.patch(importsRef(t.config.TESSERA_DB), name, { lease_expires_at: new Date(0).toISOString() });
}

storeTest("dataset decisions: import, append, replace and delete are each logged once", async (t) => {
  await post(t, "people", "name;age\nana;31\nbo;7\ncy;12\n", "?mode=create&target=age");
  await post(t, "people", "name;age\ndi;40\ned;2\n", "?mode=append");
  await post(t, "people", "name,age,city\nfe,1,x\ngu,2,y\nha,3,z\nio,4,w\n", "?mode=replace");
  assert.equal((await t.app.request(`/api/datasets/${t.db}/people`, { method: "DELETE" })).status, 204);
  const log = await entries(t, "people");
  assert.deepEqual(log.map((e) => [e.kind, e.counts]), [
    ["dataset_import", { imported: 3 }],
    ["dataset_import", { imported: 2 }],
    ["dataset_replace", { imported: 4, replaced: 5 }],
    ["dataset_delete", { deleted: 4 }],
  ]);
  for (const e of log) {
    assert.deepEqual([e.dataset, e.database, e.user], ["people", t.db, { sub: "anonymous", username: null }]);
  }
  assert.deepEqual(log[0].facts, {
    mode: "create",
    via: "api",
    format: "csv",
    delimiter: ";",
    columns: ["name", "age"],
    target: "age",
  });
  assert.deepEqual([log[1].facts.mode, log[2].facts.mode], ["append", "replace"]);
  assert.deepEqual(log[2].facts.columns, ["name", "age", "city"]);
  assert.deepEqual(log[3].facts, { registered: true, columns: ["name", "age", "city"], rows: 4 });
  // a refused delete and a refused import are no decisions
  assert.equal((await t.app.request(`/api/datasets/${t.db}/people`, { method: "DELETE" })).status, 404);
  const bad = await t.app.request(`/api/datasets/${t.db}/people?mode=create`, {
    method: "POST",
    body: "a,b\n1,2\n3\n",
    headers: { "content-type": "text/csv" },
  });
  assert.equal(bad.status, 400);
  assert.equal((await entries(t, "people")).length, 4);
  // the log is drained: no head is left with an entry queued
  assert.equal(await t.store.count(importsRef(t.config.TESSERA_DB)), 0);
});

storeTest("dataset decisions: an import rolled back by a recovery is not logged", async (t) => {
  const tdb = t.config.TESSERA_DB;
  const ref = { db: t.db, collection: "dead" };
  // an importer that wrote a batch and died: its head says `writing`
  const journal = await ImportJournal.begin(t.store, tdb, ref, "append", LEASE);
  const docs = [{ _id: newId(), a: 1 }, { _id: newId(), a: 2 }];
  await journal.log("new", docs.map((d) => d._id));
  await t.store.insertMany(ref, docs);
  journal.close();
  await expire(t, "dead");
  const done = await recoverImports(t.store, tdb, { leaseMs: LEASE });
  assert.deepEqual(done.map((r) => [r.action, r.rows_deleted]), [["rolled back", 2]]);
  assert.deepEqual(await entries(t, "dead"), []);
  // an import that fails by itself is not logged either
  async function* broken() {
    yield { a: 1 };
    throw new Error("the upload broke off");
  }
  await assert.rejects(importRecords(t.store, tdb, ref, broken(), { who: WHO }), /broke off/);
  assert.deepEqual(await entries(t, "dead"), []);
});

storeTest("dataset decisions: an import a crash left committing is completed and logged once", async (t) => {
  const tdb = t.config.TESSERA_DB;
  const ref = { db: t.db, collection: "late" };
  const journal = await ImportJournal.begin(t.store, tdb, ref, "create", LEASE);
  const docs = [{ _id: newId(), a: 1 }, { _id: newId(), a: 2 }, { _id: newId(), a: 3 }];
  await journal.log("new", docs.map((d) => d._id));
  await t.store.insertMany(ref, docs);
  // the commit's compare-and-set landed, and the process died before draining its entry
  const record = datasetRecord(ref, 0, [{ name: "a", type: "integer" }], null);
  const entry = importEntry({
    target: ref,
    mode: "create",
    who: WHO,
    imported: 3,
    replaced: 0,
    record,
    source: {},
  });
  await t.store.patch(importsRef(tdb), "late", { state: "committing", record, rows: 3, ...queuedIn(entry) });
  journal.close();
  await expire(t, "late");
  const done = await recoverImports(t.store, tdb, { leaseMs: LEASE });
  assert.deepEqual(done.map((r) => r.action), ["completed"]);
  assert.equal((await findDataset(t.store, tdb, "late"))?.rows, 3);
  const log = await entries(t, "late");
  assert.deepEqual(log.map((e) => [e.entry_id, e.kind, e.counts, e.user]), [
    [entry._id, "dataset_import", { imported: 3 }, WHO],
  ]);
  assert.equal((await entries(t, "late")).length, 1, "read again, still once");
});

storeTest("dataset decisions: a delete killed after its decision is finished by a recovery", async (t) => {
  const tdb = t.config.TESSERA_DB;
  const ref = { db: t.db, collection: "gone" };
  await post(t, "gone", "x\n1\n2\n3\n");
  // the delete decided (its head `deleting`, its entry queued) and the process died before dropping anything
  const journal = await ImportJournal.begin(t.store, tdb, ref, "replace", LEASE);
  const record = await findDataset(t.store, tdb, "gone");
  const entry = deleteEntry(ref, WHO, 3, true, record);
  await t.store.patch(importsRef(tdb), "gone", { state: "deleting", ...queuedIn(entry) });
  journal.close();
  assert.equal(await t.store.count(ref), 3);
  // a live delete makes an import of the name a 409 that says so
  const busy = await t.app.request(`/api/datasets/${t.db}/gone`, {
    method: "POST",
    body: "x\n4\n",
    headers: { "content-type": "text/csv" },
  });
  assert.equal(busy.status, 409);
  assert.match((await busy.json()).detail, /a delete of 'gone'/);
  await expire(t, "gone");
  const done = await recoverImports(t.store, tdb, { leaseMs: LEASE });
  assert.deepEqual(done.map((r) => [r.action, r.rows_deleted]), [["deleted", 3]]);
  assert.equal(await t.store.count(ref), 0);
  assert.equal(await findDataset(t.store, tdb, "gone"), null);
  assert.equal(await t.store.get(importsRef(tdb), "gone"), null);
  const log = await entries(t, "gone");
  assert.deepEqual(log.map((e) => [e.kind, e.counts]), [["dataset_import", { imported: 3 }], [
    "dataset_delete",
    { deleted: 3 },
  ]]);
  assert.equal(log[1].entry_id, entry._id);
});

storeTest("dataset decisions: a decided delete is finished by the next import of the name", async (t) => {
  const tdb = t.config.TESSERA_DB;
  const ref = { db: t.db, collection: "again" };
  await post(t, "again", "x\n1\n2\n");
  // decided through the journal (entry queued and drained), then the process died
  const journal = await ImportJournal.begin(t.store, tdb, ref, "replace", LEASE);
  await journal.decideDelete(deleteEntry(ref, WHO, 2, true, await findDataset(t.store, tdb, "again")));
  journal.close();
  await expire(t, "again");
  const fresh = await post(t, "again", "y\n7\n", "?mode=create");
  assert.deepEqual([fresh.rows, fresh.columns.map((c: { name: string }) => c.name)], [1, ["y"]]);
  assert.deepEqual((await entries(t, "again")).map((e) => [e.kind, e.counts, e.user.sub]), [
    ["dataset_import", { imported: 2 }, "anonymous"],
    ["dataset_delete", { deleted: 2 }, "u-7"],
    ["dataset_import", { imported: 1 }, "anonymous"],
  ]);
});
