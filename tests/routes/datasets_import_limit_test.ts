/**
 * The body limit is per route: the dataset import, which streams its body into the store, takes bodies
 * up to IMPORT_BODY_LIMIT_MB; every other route keeps BODY_LIMIT_MB and its 413. Also the import's
 * pipelined writes (a batch written while the next is read): a failure in any batch leaves nothing.
 */
import assert from "node:assert/strict";
import { jsonRequest, type StoreApp, storeTest } from "../support/stores.ts";
import { loadConfig } from "../../config.ts";
import { megabytes, perRouteLimit } from "../../routes/http/body_limit.ts";
import { importDataset } from "../../routes/datasets/datasets.routes.ts";

// 0.01 MB = 10,485.76 bytes for every route; 0.1 MB = 104,857.6 bytes for the import
const LIMITS = { BODY_LIMIT_MB: "0.01", IMPORT_BODY_LIMIT_MB: "0.1" };

/** NDJSON rows `{"i":n,"pad":"xxxxxxxxxx"}` until the text is at least `bytes` long. */
function ndjson(bytes: number): { text: string; rows: number } {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line = JSON.stringify({ i: lines.length, pad: "x".repeat(10) }) + "\n";
    lines.push(line);
    size += line.length;
  }
  return { text: lines.join(""), rows: lines.length };
}

/** The text as a body of 1 KB chunks (no Content-Length: the limit counts it as it is read). */
function streamed(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at += 1024));
    },
  });
}

function importBody(t: StoreApp, name: string, body: BodyInit, headers: Record<string, string> = {}) {
  return t.app.request(`/api/datasets/${t.db}/${name}?mode=create`, {
    method: "POST",
    body,
    headers: { "content-type": "application/x-ndjson", ...headers },
  });
}

storeTest(
  "body limits: the import takes a body over BODY_LIMIT_MB up to IMPORT_BODY_LIMIT_MB, streamed or declared",
  async (t) => {
    const { text, rows } = ndjson(60_000); // over the general limit, under the import's
    const res = await importBody(t, "streamed", streamed(text));
    assert.equal(res.status, 200, await res.clone().text());
    assert.equal((await res.json()).rows, rows);
    assert.equal(await t.store.count({ db: t.db, collection: "streamed" }), rows);

    const declared = await importBody(t, "declared", text, { "content-length": String(text.length) });
    assert.equal(declared.status, 200);
    assert.equal((await declared.json()).rows, rows);

    // past the import's own limit: a 413 naming it, streamed (batches written, then undone) or declared
    const big = ndjson(150_000);
    const over = await importBody(t, "over", streamed(big.text));
    assert.equal(over.status, 413);
    assert.equal((await over.json()).detail, "request body larger than 0.1 MB (the import's limit)");
    assert.equal(await t.store.count({ db: t.db, collection: "over" }), 0);
    assert.equal((await t.app.request("/dataset/over")).status, 404);
    const overDeclared = await importBody(t, "over", big.text, { "content-length": String(big.text.length) });
    assert.equal(overDeclared.status, 413);
    assert.match((await overDeclared.json()).detail, /larger than 0\.1 MB/);
  },
  { env: LIMITS },
);

storeTest(
  "body limits: another JSON route still refuses a body over BODY_LIMIT_MB with its 413",
  async (t) => {
    const task = (pad: number) => ({
      database_name: t.db,
      data_collection_name: `task${pad}`,
      component: "spatial",
      metadata: { pad: "x".repeat(pad) },
    });
    const small = await t.app.request("/api/tasks/documents", jsonRequest("POST", task(5_000)));
    assert.equal(small.status, 201);
    // 60 KB: under the import's limit, over the general one; without and with a Content-Length
    const over = await t.app.request("/api/tasks/documents", jsonRequest("POST", task(60_000)));
    assert.equal(over.status, 413);
    assert.deepEqual(await over.json(), { detail: "request body larger than 0.01 MB" });
    const body = JSON.stringify(task(60_000));
    const declared = await t.app.request("/api/tasks/documents", {
      method: "POST",
      body,
      headers: { "content-type": "application/json", "content-length": String(body.length) },
    });
    assert.equal(declared.status, 413);
    assert.equal((await t.app.request("/api/tasks/document/task60000")).status, 404);
  },
  { env: LIMITS },
);

storeTest(
  "body limits: the console's upload, an import too, takes bodies up to IMPORT_BODY_LIMIT_MB",
  async (t) => {
    const upload = (bytes: number) =>
      t.app.request("/console/datasets", {
        method: "POST",
        body: "x".repeat(bytes),
        headers: { "content-type": "multipart/form-data; boundary=b", "content-length": String(bytes) },
      });
    // over the general limit, under the import's: past the limit check (then: no session, so not signed in)
    assert.notEqual((await upload(60_000)).status, 413);
    const over = await upload(200_000);
    assert.equal(over.status, 413);
    assert.deepEqual(await over.json(), { detail: "request body larger than 0.1 MB (the import's limit)" });
  },
  { env: LIMITS },
);

Deno.test("body limits: the import's route and nothing else gets IMPORT_BODY_LIMIT_MB", () => {
  const general = megabytes(1);
  const own = megabytes(10, "the import's limit");
  const limitOf = perRouteLimit(general, [{ route: importDataset, limit: own }]);
  assert.equal(limitOf("POST", "/api/datasets/mydb/iris"), own);
  assert.equal(limitOf("POST", "/api/datasets/my%20db/iris.v2"), own);
  for (
    const [method, path] of [
      ["PUT", "/api/datasets/mydb/iris"],
      ["POST", "/api/datasets/mydb"],
      ["POST", "/api/datasets/mydb/iris/x"],
      ["POST", "/api/datasets//iris"],
      ["POST", "/xapi/datasets/mydb/iris"],
      ["POST", "/api/tasks/documents"],
      ["POST", "/console/datasets"],
    ]
  ) {
    assert.equal(limitOf(method, path), general, `${method} ${path}`);
  }
  assert.equal(general.maxBytes, 1024 * 1024);
});

Deno.test("config: the import's default body limit takes a million rows with a list column", () => {
  const c = loadConfig({});
  assert.equal(c.IMPORT_BODY_LIMIT_MB, 2048);
  assert.equal(c.BODY_LIMIT_MB, 256); // the other routes keep theirs
  // bench/import_bench.ts: 1,000,000 × (lat, lon, y_true, y_pred, 107 region ids) is ~560 MB of NDJSON
  assert.ok(c.IMPORT_BODY_LIMIT_MB * 1024 * 1024 > 2 * 560e6);
  assert.throws(() => loadConfig({ IMPORT_BODY_LIMIT_MB: "0" }), /IMPORT_BODY_LIMIT_MB/);
});

storeTest(
  "import: a batch the store refuses while the next is read leaves nothing, and names its line",
  async (t) => {
    // line 500 is too large for the store: its batch (lines 1-1,000) fails while lines 1,001-2,500 are read
    const size = t.store.kind === "kv" ? 70_000 : 17 * 1024 * 1024;
    const lines = Array.from({ length: 2500 }, (_, i) => JSON.stringify({ v: i + 1 }));
    lines[499] = JSON.stringify({ v: 500, s: "x".repeat(size) });
    const res = await importBody(t, "early", lines.join("\n"));
    assert.equal(res.status, 400);
    assert.match((await res.json()).detail, /^line 500: the document takes \d+ bytes/);
    assert.equal(await t.store.count({ db: t.db, collection: "early" }), 0);
    assert.equal((await t.app.request("/dataset/early")).status, 404);

    // a malformed line in the third batch, after two batches were written: nothing stays either
    const bad = Array.from({ length: 2500 }, (_, i) => JSON.stringify({ v: i + 1 }));
    bad[2399] = "{oops";
    const res2 = await importBody(t, "late", bad.join("\n"));
    assert.equal(res2.status, 400);
    assert.match((await res2.json()).detail, /^line 2400: not valid JSON/);
    assert.equal(await t.store.count({ db: t.db, collection: "late" }), 0);

    // the rows a dataset holds: known for a new one, counted when appending to rows already there
    const first = await importBody(t, "grow", bad.slice(0, 1500).join("\n"));
    assert.equal((await first.json()).rows, 1500);
    const more = await t.app.request(`/api/datasets/${t.db}/grow?mode=append`, {
      method: "POST",
      body: bad.slice(0, 1200).join("\n"),
      headers: { "content-type": "application/x-ndjson" },
    });
    assert.equal((await more.json()).rows, 2700);
    const replaced = await t.app.request(`/api/datasets/${t.db}/grow?mode=replace`, {
      method: "POST",
      body: bad.slice(0, 1100).join("\n"),
      headers: { "content-type": "application/x-ndjson" },
    });
    const body = await replaced.json();
    assert.deepEqual([body.rows, body.replaced, body.inserted], [1100, 2700, 1100]);
    assert.equal(await t.store.count({ db: t.db, collection: "grow" }), 1100);
  },
);
