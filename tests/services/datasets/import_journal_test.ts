/**
 * The import journal (services/datasets/import_journal.ts) in-process, on both stores: ids logged as runs
 * read back exactly; an import whose store fails after every row is in is completed by a recovery; one
 * whose rows cannot be deleted after a failure is rolled back by a recovery; an importer that lost its
 * lease to a recovery stops and leaves nothing.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { type StoreApp, storeTest } from "../../support/stores.ts";
import { type CollectionRef, type Store, StoreUnavailableError } from "../../../store/store.ts";
import { idSource } from "../../../store/ids.ts";
import { importRecords } from "../../../services/datasets/import.ts";
import { findDataset } from "../../../services/datasets/registry.ts";
import {
  encodeIds,
  expandIds,
  importChunksRef,
  type ImportHead,
  importsRef,
} from "../../../services/datasets/import_log.ts";
import { recoverImports } from "../../../services/datasets/import_recovery.ts";
import { ConflictError } from "../../../core/errors.ts";
import { listDecisions } from "../../../services/decisions/list.ts";

Deno.test("import journal: ids logged as runs read back exactly", () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.nat({ max: 3 }), fc.string()), { maxLength: 300 }),
      fc.integer({ min: 2, max: 40 }),
      (picks, span) => {
        // ids of up to four interleaved id makers (a small counter span makes them borrow seconds), and
        // ids of the records' own
        let clock = 1_700_000_000_000;
        const makers = Array.from({ length: 4 }, () => idSource(() => clock, span));
        const ids = picks.map((p) => (typeof p === "number" ? makers[p]() : `own-${p}`));
        clock += 3000;
        const back = expandIds(encodeIds(ids));
        assert.deepEqual([...back].sort(), [...ids].sort());
      },
    ),
    { numRuns: 300 },
  );
  // a batch made by one maker in one second is one run
  const make = idSource(() => 1_700_000_000_000);
  const batch = Array.from({ length: 1000 }, make);
  assert.deepEqual(encodeIds(batch), { runs: [`${batch[0]}*1000`], single: [] });
});

async function* numbered(n: number, from = 0) {
  for (let i = from; i < from + n; i++) yield { i };
}

/** The store, with `deleteMany` on `ref` failing while `broken.on` is set. */
function breakable(store: Store, ref: CollectionRef) {
  const broken = { on: false };
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === "deleteMany") {
        return (r: CollectionRef, ids: string[]) => {
          if (broken.on && r.db === ref.db && r.collection === ref.collection) {
            return Promise.reject(new StoreUnavailableError("the store went away"));
          }
          return target.deleteMany(r, ids);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: proxy, broken };
}

const LEASE = 300;

storeTest("import journal: a replace whose store fails once its rows are in is completed", async (t) => {
  const ref = { db: t.db, collection: "swap" };
  const tdb = t.config.TESSERA_DB;
  await importRecords(t.store, tdb, ref, numbered(1500));
  const { store, broken } = breakable(t.store, ref);
  // the rows go in; deleting the 1,500 old ones (the commit) fails
  const records = (async function* () {
    yield* numbered(2500, 10_000);
    broken.on = true;
  })();
  await assert.rejects(
    importRecords(store, tdb, ref, records, { mode: "replace", leaseMs: LEASE }),
    StoreUnavailableError,
  );
  broken.on = false;
  const head = (await t.store.get(importsRef(tdb), "swap")) as ImportHead;
  assert.equal(head.state, "committing");
  assert.equal(await t.store.count(ref), 4000);
  const done = await recoverImports(t.store, tdb, { leaseMs: LEASE, wait: true });
  assert.deepEqual(done.map((r) => [r.action, r.rows_deleted]), [["completed", 1500]]);
  const docs = (await t.store.list(ref)).map((d) => d.i);
  assert.deepEqual(docs, Array.from({ length: 2500 }, (_, i) => 10_000 + i));
  const rec = await findDataset(t.store, tdb, "swap");
  assert.deepEqual([rec?.rows, rec?.distributions[0].rows, rec?.importing], [2500, 2500, undefined]);
  assert.equal(await t.store.get(importsRef(tdb), "swap"), null);
  // the first import and the replace, each logged once (the replace with the commit, before it failed)
  const log = (await listDecisions(t, { dataset: "swap", limit: 10 })).decisions;
  assert.deepEqual(log.map((e) => [e.kind, e.counts]), [
    ["dataset_replace", { imported: 2500, replaced: 1500 }],
    ["dataset_import", { imported: 1500 }],
  ]);
});

storeTest(
  "import journal: a failed import whose rows cannot be deleted is rolled back by a recovery",
  async (t) => {
    const ref = { db: t.db, collection: "stuck" };
    const tdb = t.config.TESSERA_DB;
    const { store, broken } = breakable(t.store, ref);
    const records = (async function* () {
      yield* numbered(2200);
      broken.on = true; // the store goes before the import can undo itself
      throw new Error("the upload broke off");
    })();
    await assert.rejects(importRecords(store, tdb, ref, records, { leaseMs: LEASE }), (e: Error) => {
      assert.match(
        e.message,
        /^the upload broke off \(the 2000 documents inserted before the failure could not/,
      );
      assert.match(e.message, /removed when the import is recovered/);
      return true;
    });
    broken.on = false;
    assert.equal(await t.store.count(ref), 2000);
    assert.equal((await findDataset(t.store, tdb, "stuck"))?.importing, true);
    const done = await recoverImports(t.store, tdb, { leaseMs: LEASE, wait: true });
    assert.deepEqual(done.map((r) => [r.action, r.rows_deleted]), [["rolled back", 2000]]);
    assert.equal(await t.store.count(ref), 0);
    assert.equal(await findDataset(t.store, tdb, "stuck"), null);
    assert.deepEqual((await listDecisions(t, { dataset: "stuck", limit: 10 })).decisions, []);
  },
);

storeTest("import journal: an importer whose lease a recovery took over stops and leaves nothing", async (
  t: StoreApp,
) => {
  const ref = { db: t.db, collection: "late" };
  const tdb = t.config.TESSERA_DB;
  await importRecords(t.store, tdb, ref, numbered(10));
  const generation = (await findDataset(t.store, tdb, "late"))?.generation;
  let resume!: () => void;
  const paused = new Promise<void>((r) => (resume = r));
  let reached!: () => void;
  const atPause = new Promise<void>((r) => (reached = r));
  const records = (async function* () {
    yield* numbered(1500, 100);
    reached();
    await paused; // as if the process stalled past its lease
    yield* numbered(10, 5000);
  })();
  const importing = importRecords(t.store, tdb, ref, records, { leaseMs: 30_000 });
  await atPause;
  // the first batch written (its lease renewed before it): only then has the importer gone quiet
  while (await t.store.count(ref) < 1010) await new Promise((r) => setTimeout(r, 10));
  // another process sees the lease as expired (made so here) and recovers the import
  await t.store.patch(importsRef(tdb), "late", { lease_expires_at: new Date(0).toISOString() });
  const done = await recoverImports(t.store, tdb, { leaseMs: 30_000 });
  assert.deepEqual(done.map((r) => [r.action, r.rows_deleted]), [["rolled back", 1000]]);
  resume();
  await assert.rejects(importing, (e: Error) => {
    assert.ok(e instanceof ConflictError);
    assert.match(e.message, /stalled for longer than its lease .* rolled back by another process/);
    return true;
  });
  assert.deepEqual((await t.store.list(ref)).map((d) => d.i), Array.from({ length: 10 }, (_, i) => i));
  const rec = await findDataset(t.store, tdb, "late");
  assert.equal(rec?.rows, 10);
  assert.notEqual(rec?.generation, generation);
  assert.equal(await t.store.get(importsRef(tdb), "late"), null);
});

storeTest(
  "import: batches insert one after another; after one the store failed on, none inserts",
  async (t) => {
    const ref = { db: t.db, collection: "halting" };
    const tdb = t.config.TESSERA_DB;
    let calls = 0, active = 0, mostActive = 0, loggedAtFailure = 0;
    const store = new Proxy(t.store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== "insertMany") return typeof value === "function" ? value.bind(target) : value;
        return async (r: CollectionRef, docs: Record<string, unknown>[], opts?: { fresh?: Set<string> }) => {
          if (r.collection !== ref.collection) return await target.insertMany(r, docs, opts);
          calls++;
          mostActive = Math.max(mostActive, ++active);
          try {
            if (calls === 2) {
              // the third batch logs its ids while these rows go in (one at a time, it never would)
              const deadline = Date.now() + 5000;
              while (
                (loggedAtFailure = await target.count(importChunksRef(tdb))) < 3 && Date.now() < deadline
              ) {
                await new Promise((res) => setTimeout(res, 5));
              }
              throw new StoreUnavailableError("the store went away");
            }
            await new Promise((res) => setTimeout(res, 20)); // time for the next batch's rows to overlap, if they could
            return await target.insertMany(r, docs, opts);
          } finally {
            active--;
          }
        };
      },
    });
    await assert.rejects(importRecords(store, tdb, ref, numbered(5000)), /the store went away/);
    assert.equal(mostActive, 1); // the rows of two batches never went in at once
    assert.equal(loggedAtFailure, 3); // the third batch's ids were logged while the second's rows went in
    assert.equal(calls, 2); // the third batch, logged meanwhile, wrote nothing after the second failed
    assert.equal(await t.store.count(ref), 0); // the first batch's rows undone
    assert.equal(await findDataset(t.store, tdb, "halting"), null);
    assert.equal(await t.store.get(importsRef(tdb), "halting"), null);
  },
);
