/**
 * The store contract: one suite, run unchanged against KvStore (a temp file) and MongoStore (the server
 * at TEST_MONGO_URL, which `deno task test` provides; without it the Mongo run is ignored).
 */
import { valuesOf } from "../../store/column_pages.ts";
import assert from "node:assert/strict";
import { MongoClient } from "mongodb";
import { KvStore } from "../../store/kv.ts";
import { MongoStore } from "../../store/mongo.ts";
import { newId } from "../../store/ids.ts";
import {
  type CollectionRef,
  type Doc,
  DocumentTooLargeError,
  DuplicateIdError,
  type FieldUpdate,
  type Store,
  StoreUnavailableError,
} from "../../store/store.ts";
import { ConflictError } from "../../core/errors.ts";

const MONGO_URL = Deno.env.get("TEST_MONGO_URL");
/** A database name no earlier or concurrent run uses. */
const DB = `tessera_contract_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
const BIG = 100_000;
const PAYLOAD = 300;

interface Backend {
  name: string;
  ignore: boolean;
  open(): Promise<{ store: Store; cleanup(): Promise<void>; nestedArrays: boolean }>;
}

/** FerretDB 1.x (our test server) rejects an array directly inside an array; MongoDB and KV store it. */
async function isFerretDB(url: string): Promise<boolean> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 3000 });
  try {
    return "ferretdbVersion" in await client.db("admin").command({ buildInfo: 1 });
  } finally {
    await client.close();
  }
}

const backends: Backend[] = [
  {
    name: "kv",
    ignore: false,
    async open() {
      const dir = await Deno.makeTempDir({ prefix: "tessera-kv-" });
      const store = await KvStore.open(`${dir}/nested/contract.kv`); // open() must create the folder
      return { store, cleanup: () => Deno.remove(dir, { recursive: true }), nestedArrays: true };
    },
  },
  {
    name: "mongo",
    ignore: !MONGO_URL,
    async open() {
      const nestedArrays = !await isFerretDB(MONGO_URL!);
      return { store: await MongoStore.connect(MONGO_URL!), cleanup: () => Promise.resolve(), nestedArrays };
    },
  },
];

/** Wall time of one step, printed so slow backends show up in the log. */
async function timed<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const out = await fn();
  console.log(`    ${label}: ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  return out;
}

/** Every document of a collection, in stream order. */
async function all(store: Store, ref: CollectionRef, batchSize?: number): Promise<Doc[]> {
  const out: Doc[] = [];
  for await (const batch of store.stream(ref, { batchSize })) out.push(...batch);
  return out;
}

/** The error a promise rejects with (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  assert.fail("expected a rejection");
}

/** A full collection, when the runner exposes it (scripts/test.ts passes --v8-flags=--expose-gc). */
const gc = (globalThis as { gc?: () => void }).gc;

/** Heap still reachable: without gc, heapUsed counts garbage too and says nothing about retention. */
function heapUsed(): number {
  gc?.();
  return Deno.memoryUsage().heapUsed;
}

for (const backend of backends) {
  Deno.test({ name: `store contract: ${backend.name}`, ignore: backend.ignore }, async (t) => {
    const { store, cleanup, nestedArrays } = await backend.open();
    const created: CollectionRef[] = [];
    const ref = (collection: string) => {
      const r = { db: DB, collection };
      created.push(r);
      return r;
    };
    const step = (name: string, fn: () => Promise<void>) => t.step(name, fn);
    try {
      await step("ping answers", () => store.ping());

      await step("nested documents round-trip exactly", async () => {
        const c = ref("roundtrip");
        const doc: Doc = {
          _id: newId(),
          title: "Zürich – 東京 – naïve café 🦀",
          "ключ": { "キー": "値", emoji: "👩🏽‍🔬" },
          nested: { list: [1, 2.5, -3, { deep: null, deeper: [{}, { e: [] }] }], empty: {}, none: null },
          flags: [true, false, null],
          numbers: { big: 2 ** 40, tiny: 1e-12, negative: -17, zero: 0 },
          text: 'quotes " \\ and\nnewlines\ttabs',
        };
        await store.put(c, doc);
        assert.deepEqual(await store.get(c, doc._id), doc);
        for (const _id of ["user:alice", "ABCDEFABCDEFABCDEFABCDEF", "a".repeat(24)]) {
          await store.put(c, { _id, v: _id });
          assert.deepEqual(await store.get(c, _id), { _id, v: _id });
        }
        assert.equal(await store.get(c, newId()), null);
      });

      await t.step({
        name: "arrays of arrays (GeoJSON coordinates) round-trip",
        ignore: !nestedArrays, // FerretDB 1.x: "nested arrays are not supported"
        fn: async () => {
          const c = ref("nested_arrays");
          const ring = [[0, 0], [1, 0], [1, 1], [0, 0]];
          const doc: Doc = {
            _id: newId(),
            geometry: { type: "Polygon", coordinates: [ring] },
            grid: [[], [[1]]],
          };
          await store.put(c, doc);
          assert.deepEqual(await store.get(c, doc._id), doc);
        },
      });

      await step("put replaces the whole document", async () => {
        const c = ref("put");
        const _id = newId();
        await store.put(c, { _id, a: 1, b: { c: 2 } });
        await store.put(c, { _id, a: 2 });
        assert.deepEqual(await store.get(c, _id), { _id, a: 2 });
        assert.equal(await store.count(c), 1);
      });

      await step("patch sets top-level fields and keeps the rest", async () => {
        const c = ref("patch");
        const _id = newId();
        await store.put(c, { _id, a: 1, b: { c: 1 }, keep: "x" });
        const want = { _id, a: 1, b: { d: 2 }, keep: "x", added: [1, null] };
        assert.deepEqual(await store.patch(c, _id, { b: { d: 2 }, added: [1, null] }), want);
        assert.deepEqual(await store.get(c, _id), want);
        assert.deepEqual(await store.patch(c, _id, { _id: "other", a: 5 }), { ...want, a: 5 });
        assert.equal(await store.patch(c, newId(), { a: 1 }), null);
      });

      await step(
        "updateFields removes `unset` fields and skips documents a `where` does not match",
        async () => {
          const c = ref("guarded");
          const [a, b, hex, gone] = [newId(), "plain-id", "0123456789abcdef01234567", newId()];
          await store.put(c, { _id: a, f: 1, g: "x" });
          await store.put(c, { _id: b, f: 0, g: "y" });
          await store.insertMany(c, [{ _id: hex, f: 1 }]);
          const undo = (id: string) => ({ id, set: { g: "back" }, unset: ["f"], where: { f: 1 } });
          const r = await store.updateFields(c, [undo(a), undo(b), undo(hex), undo(gone)]);
          assert.deepEqual(r, { matched: 2, modified: 2, missing: [gone], skipped: [b] });
          assert.deepEqual(await store.get(c, a), { _id: a, g: "back" });
          assert.deepEqual(await store.get(c, b), { _id: b, f: 0, g: "y" });
          assert.deepEqual(await store.get(c, hex), { _id: hex, g: "back" });
          // again: `a` holds what the update makes already (matched), `b` still is not what it expects
          const again = await store.updateFields(c, [undo(a), undo(b)]);
          assert.deepEqual(again, { matched: 1, modified: 0, missing: [], skipped: [b] });
          const plain = await store.updateFields(c, [{ id: a, set: {}, unset: ["g", "never"] }]);
          assert.deepEqual(plain, { matched: 1, modified: 1, missing: [] });
          assert.deepEqual(await store.get(c, a), { _id: a });
        },
      );

      await step("compareAndSet sets only while the expected fields match; one racer wins", async () => {
        const c = ref("cas");
        const _id = newId();
        await store.put(c, { _id, status: "queued", attempt: 0, owner: null, keep: [1] });
        assert.equal(await store.compareAndSet(c, _id, { status: "running" }, { status: "x" }), null);
        assert.equal(await store.compareAndSet(c, _id, { owner: "a" }, { status: "x" }), null);
        assert.equal(await store.compareAndSet(c, newId(), {}, { status: "x" }), null);
        const claim = { status: "queued", attempt: 0 };
        const won = await Promise.all(
          ["a", "b", "c", "d", "e", "f", "g", "h"].map((owner) =>
            store.compareAndSet(c, _id, claim, { status: "running", attempt: 1, owner })
          ),
        );
        const winner = won.filter((d) => d !== null);
        assert.equal(winner.length, 1);
        const owner = winner[0]!.owner as string;
        assert.deepEqual(winner[0], { _id, status: "running", attempt: 1, owner, keep: [1] });
        assert.deepEqual(await store.get(c, _id), winner[0]);
        // null matches a stored null, not a missing field (the same on both stores)
        assert.equal(await store.compareAndSet(c, _id, { missing: null }, { status: "y" }), null);
        assert.equal(
          (await store.compareAndSet(c, _id, { attempt: 1, owner }, { owner: null }))?.owner,
          null,
        );
      });

      await step("delete and deleteMany report what existed; discard deletes without counting", async () => {
        const c = ref("delete");
        const [a, b, d] = await store.insertMany(c, [{ n: 1 }, { n: 2 }, { n: 3 }]);
        assert.equal(await store.delete(c, a), true);
        assert.equal(await store.delete(c, a), false);
        assert.equal(await store.get(c, a), null);
        assert.equal(await store.deleteMany(c, [b, newId(), "not-there"]), 1);
        assert.deepEqual((await store.list(c)).map((x) => x._id), [d]);
        // discard: the same without the count, over more keys than one commit takes
        const many = await store.insertMany(c, Array.from({ length: 1200 }, (_, n) => ({ n })));
        await store.discard(c, [...many.slice(0, 1100), newId(), "not-there", many[0]]);
        assert.deepEqual((await store.list(c)).map((x) => x._id), [d, ...many.slice(1100)]);
        await store.discard(c, []);
        assert.equal(await store.count(c), 101);
      });

      await step("insertMany assigns ids in insertion order", async () => {
        const c = ref("order");
        const ids: string[] = [];
        for (let part = 0; part < 3; part++) {
          const docs = Array.from({ length: 100 }, (_, k) => ({ i: part * 100 + k }));
          ids.push(...await store.insertMany(c, docs));
        }
        assert.equal(new Set(ids).size, 300);
        const streamed = await all(store, c, 64);
        assert.deepEqual(streamed.map((d) => d._id), ids);
        assert.deepEqual(streamed.map((d) => d.i), Array.from({ length: 300 }, (_, i) => i));
        assert.deepEqual(await store.insertMany(c, [{ _id: "given", i: -1 }]), ["given"]);
        assert.deepEqual(await store.get(c, "given"), { _id: "given", i: -1 });
        assert.deepEqual(await store.insertMany(c, []), []);
      });

      await step(
        "insertMany never writes over: an existing or repeated id is a DuplicateIdError",
        async () => {
          const c = ref("insert_only");
          const hex = newId();
          await store.insertMany(c, [{ _id: "kept", v: 0 }, { _id: hex, v: 0 }]);
          // 550 new documents, then an existing id: KV commits 500 unchecked ones before the checked chunk
          const docs: Record<string, unknown>[] = Array.from({ length: 600 }, (_, i) => ({ v: i + 1 }));
          docs[550] = { _id: "kept", v: -1 };
          const err = await rejection(store.insertMany(c, docs));
          assert.ok(err instanceof DuplicateIdError && err instanceof ConflictError);
          assert.equal(err.id, "kept");
          assert.equal(err.index, 550);
          assert.ok(err.written <= 550);
          assert.equal(await store.count(c), 2 + err.written); // the written prefix, nothing from 550 on
          assert.deepEqual(await store.get(c, "kept"), { _id: "kept", v: 0 });
          const again = await rejection(store.insertMany(c, [{ _id: hex, v: 1 }]));
          assert.ok(again instanceof DuplicateIdError);
          assert.deepEqual([again.id, again.index, again.written], [hex, 0, 0]);
          assert.deepEqual(await store.get(c, hex), { _id: hex, v: 0 });
          const twice = await rejection(store.insertMany(c, [{ _id: "t", v: 1 }, { _id: "t", v: 2 }]));
          assert.ok(twice instanceof DuplicateIdError);
          assert.deepEqual([twice.id, twice.index], ["t", 1]);
          assert.deepEqual(await store.get(c, "t"), twice.written ? { _id: "t", v: 1 } : null);
        },
      );

      await step(
        "insertMany of one id racing: exactly one wins (what the signing key relies on)",
        async () => {
          const c = ref("insert_race");
          const tries = await Promise.allSettled(
            Array.from({ length: 6 }, (_, v) => store.insertMany(c, [{ _id: "race", v }])),
          );
          const won = tries.flatMap((r, v) => r.status === "fulfilled" ? [v] : []);
          assert.equal(won.length, 1);
          for (const r of tries) if (r.status === "rejected") assert.ok(r.reason instanceof DuplicateIdError);
          assert.deepEqual(await store.get(c, "race"), { _id: "race", v: won[0] });
        },
      );

      await step("insertMany refuses a document larger than the backend stores", async () => {
        const c = ref("too_large");
        // KV takes values up to 64 KiB (V8-serialised), MongoDB documents below 16 MiB (BSON)
        const limit = backend.name === "kv" ? 65_536 : 16 * 1024 * 1024;
        const err = await rejection(store.insertMany(c, [{ v: 1 }, { s: "x".repeat(limit) }, { v: 3 }]));
        assert.ok(err instanceof DocumentTooLargeError);
        assert.equal(err.index, 1);
        assert.ok(err.bytes > limit && err.max < limit + 1 && err.written <= 1);
        assert.equal(await store.count(c), err.written);
      });

      await step("list and count filter by exact equality", async () => {
        const c = ref("filter");
        const ids = await store.insertMany(c, [
          { status: "done", n: 1, ok: true, tag: null },
          { status: "todo", n: 2, ok: false },
          { status: "done", n: 2, ok: true, tag: "x" },
          { status: ["done"], n: 3 }, // an array holding the value is not equal to it
          { status: "done", n: "2" }, // nor is a string to a number
        ]);
        const listed = async (f: Record<string, string | number | boolean | null>, limit?: number) =>
          (await store.list(c, f, { limit })).map((d) => ids.indexOf(d._id));
        assert.deepEqual(await listed({ status: "done" }), [0, 2, 4]);
        assert.deepEqual(await listed({ status: "done", n: 2 }), [2]);
        assert.deepEqual(await listed({ tag: null }), [0]); // a missing field is not null
        assert.deepEqual(await listed({ ok: false }), [1]);
        assert.deepEqual(await listed({}), [0, 1, 2, 3, 4]);
        assert.deepEqual(await listed({ status: "done" }, 2), [0, 2]);
        assert.equal(await store.count(c, { status: "done" }), 3);
        assert.equal(await store.count(c, { n: 2 }), 2);
        assert.equal(await store.count(c, { status: "none" }), 0);
        assert.equal(await store.count(c), 5);
      });

      await step("stream keeps only projected fields, in batches", async () => {
        const c = ref("projection");
        const ids = await store.insertMany(
          c,
          Array.from({ length: 5 }, (_, i) => ({ a: i, b: "drop me", c: { d: [i] } })),
        );
        const batches: Doc[][] = [];
        for await (const b of store.stream(c, { projection: ["a", "c", "absent"], batchSize: 2 })) {
          batches.push(b);
        }
        assert.deepEqual(batches.map((b) => b.length), [2, 2, 1]);
        assert.deepEqual(batches.flat(), ids.map((_id, i) => ({ _id, a: i, c: { d: [i] } })));
      });

      await step("columnPages: none, or every document's fields in stream order", async () => {
        const c = ref("columns");
        await store.insertMany(
          c,
          Array.from({ length: 1500 }, (_, i) => ({ i, r: [i % 7], s: i % 3 ? "x" : null })),
        );
        const streamed = await all(store, c, 500);
        const pages = await store.columnPages(c);
        if (pages === null) return; // a store without column pages: readers stream the documents
        const read: Record<string, unknown>[] = [];
        for await (const page of pages) {
          const cols = new Map(page.fields);
          const [i, r, s] = ["i", "r", "s"].map((f) => valuesOf(cols.get(f), page.n));
          for (let j = 0; j < page.n; j++) read.push({ _id: page.ids[j], i: i[j], r: r[j], s: s[j] });
        }
        assert.deepEqual(read, streamed);
      });

      await step("sample returns up to n distinct documents of the collection", async () => {
        const c = ref("sample");
        const ids = await store.insertMany(c, Array.from({ length: 250 }, (_, i) => ({ i })));
        const byId = new Map((await store.list(c)).map((d) => [d._id, d]));
        const firstTen = ids.slice(0, 10).join();
        let allFirstTen = true;
        for (let round = 0; round < 3; round++) {
          const got = await store.sample(c, 10);
          assert.equal(got.length, 10);
          assert.equal(new Set(got.map((d) => d._id)).size, 10);
          for (const d of got) assert.deepEqual(d, byId.get(d._id));
          if (got.map((d) => d._id).join() !== firstTen) allFirstTen = false;
        }
        assert.ok(!allFirstTen, "three samples of 10 of 250 were all the first ten: not random");
        const everything = await store.sample(c, 1000);
        assert.deepEqual(everything.map((d) => d._id).sort(), [...ids].sort());
        assert.deepEqual(await store.sample(ref("sample_empty"), 5), []);
      });

      const big = ref("big");
      const bigIds: string[] = [];
      await step(`insertMany ${BIG} documents`, async () => {
        await timed(`[${backend.name}] insert ${BIG}`, async () => {
          for (let i = 0; i < BIG; i += 10_000) {
            const docs = Array.from({ length: 10_000 }, (_, k) => {
              const n = i + k;
              return { n, group: n % 10, payload: `${n}:`.padEnd(PAYLOAD, String.fromCharCode(97 + n % 26)) };
            });
            bigIds.push(...await store.insertMany(big, docs));
          }
        });
        assert.equal(await timed(`[${backend.name}] count ${BIG}`, () => store.count(big)), BIG);
        assert.equal(await store.count(big, { group: 3 }), BIG / 10);
      });

      const memory = gc ? "with bounded memory" : "(memory not measured: no --expose-gc)";
      await step(`stream ${BIG} documents ${memory}`, async () => {
        // Holding every document needs at least BIG distinct PAYLOAD-char strings: 30 MB. Streaming holds
        // our batch and the driver's next one, each 1000 × (300 B payload + ~100 B object and id) ≈ 0.4 MB;
        // allow a fifth of the whole (6 MB), which holding even a fifth of the documents would exceed.
        const bound = (BIG * PAYLOAD) / 5;
        const base = heapUsed();
        let peak = 0, seen = 0, last = "";
        await timed(`[${backend.name}] stream ${BIG}`, async () => {
          for await (const batch of store.stream(big, { batchSize: 1000, projection: ["n", "payload"] })) {
            assert.ok(batch.length <= 1000);
            for (const d of batch) {
              assert.ok(d._id > last, "ids ascend");
              assert.equal((d.payload as string).length, PAYLOAD);
              assert.equal(d.group, undefined);
              last = d._id;
            }
            seen += batch.length;
            peak = Math.max(peak, heapUsed() - base);
          }
        });
        console.log(`    [${backend.name}] peak heap growth ${(peak / 2 ** 20).toFixed(1)} MiB`);
        assert.equal(seen, BIG);
        if (gc) assert.ok(peak < bound, `heap grew ${peak} B, bound ${bound} B`);
      });

      await step(`updateFields on ${BIG} documents`, async () => {
        const missing = [newId(), "no-such-id", newId()];
        const updates: FieldUpdate[] = bigIds.map((id, i) => ({
          id,
          set: { score: i / 2, even: i % 2 === 0 },
        }));
        updates.splice(5, 0, { id: missing[0], set: { score: 1 } });
        updates.splice(50_000, 0, { id: missing[1], set: { score: 1 } });
        updates.push({ id: missing[2], set: { score: 1 } });
        const first = await timed(
          `[${backend.name}] updateFields ${BIG}`,
          () => store.updateFields(big, updates),
        );
        assert.deepEqual(first, { matched: BIG, modified: BIG, missing });
        const again = await timed(
          `[${backend.name}] updateFields ${BIG} again`,
          () => store.updateFields(big, updates),
        );
        assert.deepEqual(again, { matched: BIG, modified: 0, missing });
        const some = bigIds.slice(0, 1000).map((id, i) => ({ id, set: { score: i % 2 ? i / 2 : -1 } }));
        assert.deepEqual(await store.updateFields(big, some), { matched: 1000, modified: 500, missing: [] });
        const d = await store.get(big, bigIds[12_345]);
        assert.deepEqual({ ...d, payload: undefined }, {
          _id: bigIds[12_345],
          n: 12_345,
          group: 5,
          score: 12_345 / 2,
          even: false,
          payload: undefined,
        });
      });

      await step("concurrent updateFields of other fields of the same documents lose nothing", async () => {
        const ids = bigIds.slice(0, 3000);
        await Promise.all(
          ["left", "right", "middle"].map((field, f) =>
            store.updateFields(big, ids.map((id, i) => ({ id, set: { [field]: i * 3 + f } })))
          ),
        );
        for (const i of [0, 99, 100, 1234, 2999]) {
          const d = await store.get(big, ids[i]);
          assert.deepEqual([d?.left, d?.right, d?.middle, d?.n], [i * 3, i * 3 + 1, i * 3 + 2, i]);
        }
      });

      await step("dropCollection removes everything, and tolerates absence", async () => {
        await store.dropCollection(big);
        assert.equal(await store.count(big), 0);
        assert.deepEqual(await store.list(big, {}, { limit: 1 }), []);
        assert.equal(await store.get(big, bigIds[0]), null);
        await store.dropCollection(ref("never_created"));
      });
    } finally {
      for (const r of created) await store.dropCollection(r).catch(() => {});
      await store.close();
      await cleanup();
    }
  });
}

// The KV counterpart does not apply: the embedded store has no server to lose.
Deno.test("store contract: mongo on a closed port fails fast with StoreUnavailableError", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // nothing listens there now
  const store = await MongoStore.connect(`mongodb://127.0.0.1:${port}/`);
  const c = { db: DB, collection: "down" };
  const t0 = performance.now();
  try {
    await Promise.all([
      assert.rejects(store.ping(), StoreUnavailableError),
      assert.rejects(store.get(c, newId()), StoreUnavailableError),
      assert.rejects(store.count(c), StoreUnavailableError),
      assert.rejects(store.updateFields(c, [{ id: newId(), set: { a: 1 } }]), StoreUnavailableError),
      assert.rejects(all(store, c), StoreUnavailableError),
    ]);
  } finally {
    await store.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  assert.ok(seconds < 6, `took ${seconds.toFixed(1)} s`);
});
