/**
 * `GET /api/datasets/{database}/{collection}` on both stores: NDJSON and CSV equal to the imported rows
 * (expected values written by hand), `fields`, RFC 4180 quoting, the refusals (404, 406, 422, 401), and a
 * collection of 100,000 rows that streams: the first rows arrive while the store is far from read, a
 * client that stops reading stops the reads, and the whole read holds a bounded amount of memory.
 */
import assert from "node:assert/strict";
import { importCsv, type StoreApp, storeTest } from "../support/stores.ts";
import { servicePool } from "../support/pools.ts";
import { testApp } from "../support/app.ts";
import { createApp } from "../../app.ts";
import { type CollectionRef, type Doc, type Store, StoreUnavailableError } from "../../store/store.ts";

/** GETs an export; `path` is relative to `/api/datasets/`. */
function download(t: Pick<StoreApp, "app">, path: string, accept?: string) {
  return t.app.request(`/api/datasets/${path}`, accept === undefined ? {} : { headers: { accept } });
}

/** The collection's ids in stored order. */
async function ids(t: StoreApp, collection: string): Promise<string[]> {
  const out: string[] = [];
  for await (const b of t.store.stream({ db: t.db, collection }, { projection: [] })) {
    out.push(...b.map((d) => d._id));
  }
  return out;
}

/** Parses an NDJSON answer (every line ends with \n). */
function ndjson(text: string): Doc[] {
  assert.ok(text.endsWith("\n"), "the last line ends with \\n");
  return text.slice(0, -1).split("\n").map((l) => JSON.parse(l));
}

// Three rows whose cells need RFC 4180 quoting: a comma, doubled quotes, a line break inside quotes.
const PEOPLE = 'name,age,member,note\nana,31,true,"likes, commas"\nbo,,false,"she said ""hi"""\n' +
  'cy,7,true,"two\nlines"\n';

storeTest("export: NDJSON equals the imported rows, each with its _id first", async (t) => {
  await importCsv(t, "people", PEOPLE);
  const [a, b, c] = await ids(t, "people");
  for (const accept of [undefined, "application/x-ndjson", "*/*", "application/*", "text/html, */*;q=0.8"]) {
    const res = await download(t, `${t.db}/people`, accept);
    assert.equal(res.status, 200, `Accept ${accept}`);
    assert.equal(res.headers.get("content-type"), "application/x-ndjson; charset=utf-8");
    assert.equal(res.headers.get("content-disposition"), 'attachment; filename="people.ndjson"');
    const rows = ndjson(await res.text());
    assert.deepEqual(rows, [
      { _id: a, name: "ana", age: 31, member: true, note: "likes, commas" },
      { _id: b, name: "bo", age: null, member: false, note: 'she said "hi"' },
      { _id: c, name: "cy", age: 7, member: true, note: "two\nlines" },
    ]);
    for (const r of rows) assert.equal(Object.keys(r)[0], "_id");
  }
});

storeTest("export: CSV equals the imported rows, quoted by RFC 4180", async (t) => {
  await importCsv(t, "people", PEOPLE);
  const [a, b, c] = await ids(t, "people");
  const res = await download(t, `${t.db}/people`, "text/csv");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8; header=present");
  assert.equal(res.headers.get("content-disposition"), 'attachment; filename="people.csv"');
  assert.equal(
    await res.text(),
    "_id,name,age,member,note\r\n" +
      `${a},ana,31,true,"likes, commas"\r\n` +
      `${b},bo,,false,"she said ""hi"""\r\n` +
      `${c},cy,7,true,"two\nlines"\r\n`,
  );
  // text/* and a heavier text/csv choose CSV; ?format=csv overrides an Accept it could not serve
  for (const accept of ["text/*", "application/x-ndjson;q=0.4, text/csv;q=0.5"]) {
    assert.match((await download(t, `${t.db}/people`, accept)).headers.get("content-type")!, /^text\/csv/);
  }
  const forced = await download(t, `${t.db}/people?format=csv`, "application/json");
  assert.equal(forced.status, 200);
  assert.match(await forced.text(), /^_id,name,age,member,note\r\n/);
});

storeTest("export: CSV header adds fields the registry lacks; nested values are JSON text", async (t) => {
  const ref = { db: t.db, collection: "shapes" };
  const up = await t.app.request(`/api/datasets/${t.db}/shapes`, {
    method: "POST",
    body: '{"kind":"box","dims":{"w":2,"h":[1,2]}}\n{"kind":"dot"}\n',
    headers: { "content-type": "application/x-ndjson" },
  });
  assert.equal(up.status, 200);
  const [a, b] = await ids(t, "shapes");
  // a field written after the import, as a write-back does: not in the registry's columns
  await t.store.updateFields(ref, [{ id: b, set: { y_pred_fair: 1 } }]);
  const csv = await (await download(t, `${t.db}/shapes`, "text/csv")).text();
  assert.equal(
    csv,
    "_id,kind,dims,y_pred_fair\r\n" +
      `${a},box,"{""w"":2,""h"":[1,2]}",\r\n` +
      `${b},dot,,1\r\n`,
  );
  const rows = ndjson(await (await download(t, `${t.db}/shapes`)).text());
  assert.deepEqual(rows, [
    { _id: a, kind: "box", dims: { w: 2, h: [1, 2] } },
    { _id: b, kind: "dot", y_pred_fair: 1 },
  ]);
  // the write-back's field alone, as a reviewer checks it
  const only = await (await download(t, `${t.db}/shapes?fields=y_pred_fair`, "text/csv")).text();
  assert.equal(only, `_id,y_pred_fair\r\n${a},\r\n${b},1\r\n`);
});

storeTest("export: fields keeps _id and the named fields; a name no document has is a 422", async (t) => {
  await importCsv(t, "people", PEOPLE);
  const [a, b, c] = await ids(t, "people");
  const nd = await download(t, `${t.db}/people?fields=${encodeURIComponent("age, name,age,_id")}`);
  assert.equal(nd.status, 200);
  assert.deepEqual(ndjson(await nd.text()), [
    { _id: a, name: "ana", age: 31 },
    { _id: b, name: "bo", age: null },
    { _id: c, name: "cy", age: 7 },
  ]);
  const csv = await download(t, `${t.db}/people?fields=note,age`, "text/csv");
  assert.equal(
    await csv.text(),
    `_id,note,age\r\n${a},"likes, commas",31\r\n${b},"she said ""hi""",\r\n${c},"two\nlines",7\r\n`,
  );
  const idOnly = await download(t, `${t.db}/people?fields=_id`);
  assert.deepEqual(ndjson(await idOnly.text()), [{ _id: a }, { _id: b }, { _id: c }]);

  const typo = await download(t, `${t.db}/people?fields=name,agee,nope`);
  assert.equal(typo.status, 404);
  const [item] = (await typo.json()).detail;
  assert.deepEqual(item.loc, ["query", "fields"]);
  assert.equal(item.msg, "no document of 'people' has the fields 'agee', 'nope'");
  for (const [list, msg] of [["a,,b", /the 2nd of 3 comma-separated names is empty/], ["", /at least one/]]) {
    const bad = await download(t, `${t.db}/people?fields=${encodeURIComponent(list as string)}`);
    assert.equal(bad.status, 422);
    const [detail] = (await bad.json()).detail;
    assert.deepEqual(detail.loc, ["query", "fields"]);
    assert.match(detail.msg, msg as RegExp);
  }
});

storeTest(
  "export: 404 names the collection, 406 lists the types, Tessera's database is refused",
  async (t) => {
    await importCsv(t, "people", PEOPLE);
    const none = await download(t, `${t.db}/nobody`);
    assert.equal(none.status, 404);
    assert.equal((await none.json()).detail, `no collection 'nobody' in database '${t.db}'`);
    const other = await download(t, `${t.db}_b/people`);
    assert.equal(other.status, 404);
    assert.equal(
      (await other.json()).detail,
      `no collection 'people' in database '${t.db}_b' (a dataset of that name lives in database '${t.db}')`,
    );

    for (const accept of ["application/json", "text/html", "text/csv;q=0, application/x-ndjson;q=0"]) {
      const res = await download(t, `${t.db}/people`, accept);
      assert.equal(res.status, 406, accept);
      assert.equal(
        (await res.json()).detail,
        `cannot answer with '${accept}': this route serves application/x-ndjson or text/csv`,
      );
    }

    const own = await download(t, `${t.config.TESSERA_DB}/datasets`);
    assert.equal(own.status, 422);
    const [item] = (await own.json()).detail;
    assert.deepEqual(item.loc, ["path", "database_name"]);
    assert.equal(item.msg, `database '${t.config.TESSERA_DB}' holds Tessera's own records`);
    const bad = await download(t, `${t.db}/$bad`);
    assert.equal(bad.status, 422);
    assert.deepEqual((await bad.json()).detail[0].loc, ["path", "collection_name"]);
  },
);

storeTest("export: a collection not imported through Tessera exports from its documents", async (t) => {
  const ref = { db: t.db, collection: "external" };
  await t.store.insertMany(ref, [{ _id: "e1", a: 1 }, { _id: "e2", b: "x,y" }]);
  const csv = await download(t, `${t.db}/external`, "text/csv");
  assert.equal(await csv.text(), '_id,a,b\r\ne1,1,\r\ne2,,"x,y"\r\n');
});

storeTest("export: the bearer token is required", async (t) => {
  const anonymous = await download(t, `${t.db}/people`);
  assert.equal(anonymous.status, 401);
  const form = { grant_type: "password", client_id: "tessera", client_secret: "tessera-secret" };
  const tokenRes = await t.app.request("/realms/tessera/protocol/openid-connect/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ ...form, username: "alice", password: "wonderland" }),
  });
  const { access_token } = await tokenRes.json();
  const authorization = `Bearer ${access_token}`;
  const up = await t.app.request(`/api/datasets/${t.db}/people`, {
    method: "POST",
    body: "a\n1\n",
    headers: { "content-type": "text/csv", authorization },
  });
  assert.equal(up.status, 200);
  const res = await t.app.request(`/api/datasets/${t.db}/people`, { headers: { authorization } });
  assert.equal(res.status, 200);
  assert.deepEqual(ndjson(await res.text()).map((r) => r.a), [1]);
}, { auth: true });

/** The store, counting the documents its streams have handed out and whether each stream was closed. */
function countingStore(store: Store) {
  const seen = { docs: 0, open: 0 };
  const stream = (ref: CollectionRef, opts?: Parameters<Store["stream"]>[1]) =>
    (async function* () {
      seen.open++;
      try {
        for await (const batch of store.stream(ref, opts)) {
          seen.docs += batch.length;
          yield batch;
        }
      } finally {
        seen.open--;
      }
    })();
  const wrapped = new Proxy(store, {
    get(target, prop) {
      if (prop === "stream") return stream;
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
  return { store: wrapped, seen };
}

const BIG = 100_000;
const PAYLOAD = 200;

/** Heap still reachable (`deno task test` passes --expose-gc; without it, null: not measured). */
const gc = (globalThis as { gc?: () => void }).gc;
const heapUsed = () => (gc?.(), Deno.memoryUsage().heapUsed);

storeTest(`export: ${BIG} rows stream with backpressure and bounded memory`, async (t) => {
  const ref = { db: t.db, collection: "big" };
  for (let i = 0; i < BIG; i += 10_000) {
    await t.store.insertMany(
      ref,
      Array.from({ length: 10_000 }, (_, k) => ({ n: i + k, payload: `${i + k}:`.padEnd(PAYLOAD, "x") })),
    );
  }
  const { store, seen } = countingStore(t.store);
  const pool = servicePool(1);
  const app = createApp({ config: t.config, store, pool, verifier: null });
  try {
    // the first chunk (1,000 rows) arrives while the store has handed out at most two batches (and the
    // one document that shows this unregistered collection exists)
    const HELD = 2 * 1000 + 1;
    const res = await download({ app }, `${t.db}/big`);
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.equal(first.split("\n").length - 1, 1000);
    assert.equal(JSON.parse(first.slice(0, first.indexOf("\n"))).n, 0);
    assert.ok(seen.docs <= HELD, `read ${seen.docs} documents before the first chunk was taken`);
    // nobody reads: the store is not read further
    await new Promise((r) => setTimeout(r, 200));
    assert.ok(seen.docs <= HELD, `read ${seen.docs} documents while the client did not read`);
    // a client that goes away closes the store's stream
    await reader.cancel();
    assert.equal(seen.open, 0, "the store's stream was closed");

    // the whole answer, holding about one batch: holding every row would take BIG × PAYLOAD = 20 MB of
    // strings alone; a batch of documents and its chunk ~0.5 MB each. Allow a quarter of the whole (5 MB).
    seen.docs = 0;
    const base = heapUsed();
    let peak = 0, chunks = 0, lines = 0, tail = "", last = -1;
    const decoder = new TextDecoder();
    for await (const chunk of (await download({ app }, `${t.db}/big`)).body!) {
      const text = tail + decoder.decode(chunk, { stream: true });
      const parts = text.split("\n");
      tail = parts.pop()!;
      for (const line of parts) {
        const n = JSON.parse(line).n;
        assert.equal(n, last + 1);
        last = n;
      }
      lines += parts.length;
      if (++chunks % 5 === 0) peak = Math.max(peak, heapUsed() - base); // a full gc takes a while: every 5th
    }
    assert.equal(tail, "");
    assert.equal(lines, BIG);
    assert.equal(seen.docs, BIG + 1, "each row read once (and the existence probe's one)");
    console.log(
      `    [${t.store.kind}] export of ${BIG} rows: peak heap growth ${(peak / 2 ** 20).toFixed(1)} MiB`,
    );
    if (gc) assert.ok(peak < (BIG * PAYLOAD) / 4, `heap grew ${peak} B`);
  } finally {
    pool.close();
  }
});

// KV only: FerretDB refuses such field names on insert (MongoDB 5 and later stores them, and would read a
// dotted projection as a path, which is why the export projects such names itself).
Deno.test("export [kv]: fields with a dot or a leading $ name top-level fields, not paths", async () => {
  const t = await testApp();
  try {
    const up = await t.app.request("/api/datasets/testdb/odd", {
      method: "POST",
      body: '{"a.b":1,"a":{"b":2},"$c":3,"d":4}\n',
      headers: { "content-type": "application/x-ndjson" },
    });
    assert.equal(up.status, 200);
    const [a] = (await t.store.list({ db: "testdb", collection: "odd" })).map((d) => d._id);
    const res = await download(t, `testdb/odd?fields=${encodeURIComponent("a.b,$c")}`);
    assert.equal(res.status, 200);
    assert.deepEqual(ndjson(await res.text()), [{ _id: a, "a.b": 1, $c: 3 }]);
  } finally {
    await t.close();
  }
});

/** The store, its streams failing after `after` batches (0: at once). */
function failingStore(store: Store, after: number): Store {
  const stream = (ref: CollectionRef, opts?: Parameters<Store["stream"]>[1]) =>
    (async function* () {
      let n = 0;
      for await (const batch of store.stream(ref, opts)) {
        if (n++ >= after) throw new StoreUnavailableError("connection reset");
        yield batch;
      }
    })();
  return new Proxy(store, {
    get(target, prop) {
      if (prop === "stream") return stream;
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

storeTest("export: a store failing before the rows is a 503; after them, the transfer breaks", async (t) => {
  const rows = Array.from({ length: 1500 }, (_, i) => `{"i":${i}}`).join("\n");
  const up = await t.app.request(`/api/datasets/${t.db}/flaky`, {
    method: "POST",
    body: rows,
    headers: { "content-type": "application/x-ndjson" },
  });
  assert.equal(up.status, 200);
  const pool = servicePool(1);
  try {
    const early = createApp({ config: t.config, store: failingStore(t.store, 0), pool, verifier: null });
    const res = await download({ app: early }, `${t.db}/flaky`);
    assert.equal(res.status, 503);
    assert.match((await res.json()).detail, /the store is unavailable: connection reset/);

    // the first 1,000 rows are sent; the next read fails: the body errors instead of ending
    const late = createApp({ config: t.config, store: failingStore(t.store, 1), pool, verifier: null });
    const cut = await download({ app: late }, `${t.db}/flaky`);
    assert.equal(cut.status, 200);
    await assert.rejects(cut.text(), /connection reset/);
  } finally {
    pool.close();
  }
});
