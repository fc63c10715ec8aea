/**
 * `POST /api/datasets/{database}/{collection}` on both stores: formats, all-or-nothing uploads (a bad
 * line, a document too large for the store, an `_id` that exists), and the route's refusals.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../support/stores.ts";
import type { Doc } from "../../store/store.ts";

const CT = { csv: "text/csv", ndjson: "application/x-ndjson", json: "application/json" };

/** POSTs an upload body; `path` is relative to `/api/datasets/`. */
function upload(t: StoreApp, path: string, body: string, format: keyof typeof CT) {
  return t.app.request(`/api/datasets/${path}`, {
    method: "POST",
    body,
    headers: { "content-type": CT[format] },
  });
}

/** Every document of a collection, in id order, without ids. */
async function rows(t: StoreApp, collection: string): Promise<Record<string, unknown>[]> {
  const docs: Doc[] = [];
  for await (const b of t.store.stream({ db: t.db, collection })) docs.push(...b);
  return docs.map(({ _id, ...d }) => d);
}

storeTest("import: CSV rows land typed, in order, and the dataset is catalogued", async (t) => {
  const res = await upload(t, `${t.db}/people`, "name,age,member\nana,31,true\nbo,,false\n", "csv");
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.inserted, 2);
  assert.equal(body.dataset_id, "people");
  assert.deepEqual(body.columns, [
    { name: "name", type: "string" },
    { name: "age", type: "integer" },
    { name: "member", type: "boolean" },
  ]);
  assert.deepEqual(await rows(t, "people"), [
    { name: "ana", age: 31, member: true },
    { name: "bo", age: null, member: false },
  ]);
  assert.equal(res.headers.get("x-request-id")?.length, 36);
});

storeTest("import: a malformed CSV row is a 400 naming its line and nothing stays", async (t) => {
  // 2,500 good rows fill two batches of 1,000 before the bad one (line 1 is the header)
  const csv = ["a,b", ...Array.from({ length: 2500 }, (_, i) => `${i},${i}`), "oops"].join("\n");
  const res = await upload(t, `${t.db}/people`, csv, "csv");
  assert.equal(res.status, 400);
  assert.match((await res.json()).detail, /line 2502: expected 2 fields, found 1/);
  assert.equal(await t.store.count({ db: t.db, collection: "people" }), 0);
  for (const body of ["", "a,b\n"]) {
    const empty = await upload(t, `${t.db}/people`, body, "csv");
    assert.equal(empty.status, 400);
    assert.match((await empty.json()).detail, /holds no rows/);
  }
  assert.equal((await t.app.request("/dataset/people")).status, 404); // not catalogued either
});

storeTest("import: a bad NDJSON line is a 400 naming it (blank lines count) and nothing stays", async (t) => {
  const res = await upload(t, `${t.db}/points`, '{"a":1}\n\n{oops\n{"a":2}\n', "ndjson");
  assert.equal(res.status, 400);
  assert.match((await res.json()).detail, /^line 3: not valid JSON/);
  const arr = await upload(t, `${t.db}/points`, '[{"a":1}, 5]', "json");
  assert.equal(arr.status, 400);
  assert.match((await arr.json()).detail, /^item 1: expected a JSON object/);
  assert.equal(await t.store.count({ db: t.db, collection: "points" }), 0);
});

storeTest("import: NDJSON and JSON arrays; replace swaps the rows; another database is a 409", async (t) => {
  const nd = await upload(t, `${t.db}/points`, '{"x":1}\n{"x":2.5}\n', "ndjson");
  assert.equal(nd.status, 200);
  assert.deepEqual((await nd.json()).columns, [{ name: "x", type: "number" }]);
  const js = await upload(t, `${t.db}/points?replace=true`, JSON.stringify([{ y: "a" }]), "json");
  const body = await js.json();
  assert.equal(body.replaced, 2);
  assert.equal(body.rows, 1);
  assert.deepEqual(await rows(t, "points"), [{ y: "a" }]);
  const clash = await upload(t, "other/points", "[]", "json");
  assert.equal(clash.status, 409);
  assert.match((await clash.json()).detail, new RegExp(`already exists in database '${t.db}'`));
});

storeTest("import: bad names are 422 with a path loc; unknown format is 400; oversize is 413", async (t) => {
  const bad = await upload(t, `${t.db}/$bad`, "a\n1", "csv");
  assert.equal(bad.status, 422);
  assert.deepEqual((await bad.json()).detail[0].loc, ["path", "collection_name"]);
  const own = await upload(t, `${t.config.TESSERA_DB}/x`, "a\n1", "csv");
  assert.equal(own.status, 422);
  assert.match(JSON.stringify(await own.json()), /holds Tessera's own records/);
  const fmt = await t.app.request(`/api/datasets/${t.db}/x`, {
    method: "POST",
    body: "a",
    headers: { "content-type": "text/plain" },
  });
  assert.equal(fmt.status, 400);
  assert.match(JSON.stringify(await fmt.json()), /detail/);
  // the limit is 0.001 MB = 1,048.576 bytes; "a\n" plus 2,000 × "1\n" is 4,002
  const big = await upload(t, `${t.db}/x`, "a\n" + "1\n".repeat(2000), "csv");
  assert.equal(big.status, 413);
  assert.equal(await t.store.count({ db: t.db, collection: "x" }), 0);
}, { env: { IMPORT_BODY_LIMIT_MB: "0.001" } });

storeTest(
  "import: a document too large for the store is a 400 naming its line; the append leaves nothing",
  async (t) => {
    const ref = { db: t.db, collection: "wide" };
    assert.equal((await upload(t, `${t.db}/wide`, '{"v":0}\n{"v":-1}\n', "ndjson")).status, 200);
    // KV stores values up to 64 KiB, MongoDB documents below 16 MiB: line 1651 is just over either.
    // With batches of 1,000, the first batch and (on KV) a commit of 500 more are written before it.
    const size = t.store.kind === "kv" ? 70_000 : 17 * 1024 * 1024;
    const lines = Array.from({ length: 1700 }, (_, i) => JSON.stringify({ v: i + 1 }));
    lines[1650] = JSON.stringify({ v: 1651, s: "x".repeat(size) });
    const res = await upload(t, `${t.db}/wide`, lines.join("\n"), "ndjson");
    assert.equal(res.status, 400);
    assert.match((await res.json()).detail, /^line 1651: the document takes \d+ bytes, more than the \d+/);
    assert.deepEqual(await rows(t, "wide"), [{ v: 0 }, { v: -1 }]);
    assert.equal(await t.store.count(ref), 2);
  },
);

storeTest(
  "import: an _id that exists is a 409 naming its line; the existing document is untouched",
  async (t) => {
    const ref = { db: t.db, collection: "ids" };
    const first = await upload(t, `${t.db}/ids`, '{"_id":"keep","v":1}\n{"v":2}\n', "ndjson");
    assert.equal(first.status, 200);
    // line 1050 brings a new id of its own, line 1101 an existing one (in the second batch of 1,000)
    const lines = Array.from({ length: 1200 }, (_, i) => JSON.stringify({ v: i + 1 }));
    lines[1049] = JSON.stringify({ _id: "mine", v: 1050 });
    lines[1100] = JSON.stringify({ _id: "keep", v: -1 });
    const res = await upload(t, `${t.db}/ids`, lines.join("\n"), "ndjson");
    assert.equal(res.status, 409);
    assert.match((await res.json()).detail, /^line 1101: document id 'keep' exists already/);
    assert.equal(await t.store.count(ref), 2);
    assert.deepEqual(await t.store.get(ref, "keep"), { _id: "keep", v: 1 });
    assert.equal(await t.store.get(ref, "mine"), null);
    // the same id twice in one upload: the second is refused, the first undone
    const twice = await upload(t, `${t.db}/ids`, JSON.stringify([{ _id: "t" }, { _id: "t", v: 1 }]), "json");
    assert.equal(twice.status, 409);
    assert.match((await twice.json()).detail, /^item 1: document id 't' exists already/);
    assert.equal(await t.store.get(ref, "t"), null);
    assert.equal(await t.store.count(ref), 2);
  },
);

storeTest("import: one new name into two databases at once lands once, the other is a 409", async (t) => {
  const other = `${t.db}_b`;
  const body = Array.from({ length: 3000 }, (_, i) => `{"i":${i}}`).join("\n"); // three batches each
  try {
    const [a, b] = await Promise.all([
      upload(t, `${t.db}/race`, body, "ndjson"),
      upload(t, `${other}/race`, body, "ndjson"),
    ]);
    assert.deepEqual([a.status, b.status].sort(), [200, 409]);
    const [winner, loser] = a.status === 200 ? [t.db, other] : [other, t.db];
    const dataset = await (await t.app.request("/dataset/race")).json();
    assert.deepEqual([dataset.database, dataset.rows], [winner, 3000]);
    assert.equal(await t.store.count({ db: loser, collection: "race" }), 0);

    // A failed first upload gives its name back: another database may take it afterwards.
    assert.equal((await upload(t, `${t.db}/fresh`, '{"i":1}\n{oops}\n', "ndjson")).status, 400);
    assert.equal((await t.app.request("/dataset/fresh")).status, 404);
    assert.equal((await upload(t, `${other}/fresh`, '{"i":1}\n', "ndjson")).status, 200);
  } finally {
    for (const c of ["race", "fresh"]) await t.store.dropCollection({ db: other, collection: c });
  }
});

storeTest("import: while a dataset's first import runs, another upload to its name is a 409", async (t) => {
  let send!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (send = c) });
  send.enqueue(new TextEncoder().encode('{"i":1}\n'));
  const first = t.app.request(`/api/datasets/${t.db}/slow`, {
    method: "POST",
    body,
    headers: { "content-type": CT.ndjson },
  });
  for (let i = 0; (await t.app.request("/dataset/slow")).status === 404; i++) {
    assert.ok(i < 200, "the first import never reserved its name");
    await new Promise((r) => setTimeout(r, 10));
  }
  const second = await upload(t, `${t.db}/slow`, '{"i":2}\n', "ndjson");
  assert.equal(second.status, 409);
  assert.match((await second.json()).detail, /first import of 'slow' .* is still running/);
  send.enqueue(new TextEncoder().encode('{"i":3}\n'));
  send.close();
  assert.equal((await first).status, 200);
  assert.equal((await upload(t, `${t.db}/slow`, '{"i":4}\n', "ndjson")).status, 200); // appends now
  assert.deepEqual(await rows(t, "slow"), [{ i: 1 }, { i: 3 }, { i: 4 }]);
});

storeTest(
  "import: a chunked upload streams; past the body limit it is a 413 and its batches are undone",
  async (t) => {
    // 8,000 NDJSON rows of ~9 bytes in chunks of 100 rows: ~72 KB against a 0.05 MB (52,429 bytes) limit,
    // so batches of 1,000 rows are written before the limit is crossed
    const enc = new TextEncoder();
    let row = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (row >= 8000) return c.close();
        c.enqueue(enc.encode(Array.from({ length: 100 }, () => `{"i":${row++}}\n`).join("")));
      },
    });
    const res = await t.app.request(`/api/datasets/${t.db}/chunked`, {
      method: "POST",
      body,
      headers: { "content-type": CT.ndjson },
    });
    assert.equal(res.status, 413);
    assert.match((await res.json()).detail, /request body larger than 0.05 MB/);
    assert.ok(row < 8000, "the body was read past the limit");
    assert.equal(await t.store.count({ db: t.db, collection: "chunked" }), 0);
    assert.equal((await t.app.request("/dataset/chunked")).status, 404);
  },
  { env: { IMPORT_BODY_LIMIT_MB: "0.05" } },
);
