import assert from "node:assert/strict";
import { testApp } from "../support/app.ts";

const csv = (body: string, path = "/api/datasets/demo/people", query = "") => ({
  path: path + query,
  init: { method: "POST", body, headers: { "content-type": "text/csv" } },
});

Deno.test("import: CSV rows land typed, in order, and the dataset is catalogued", async () => {
  const t = await testApp();
  try {
    const { path, init } = csv("name,age,member\nana,31,true\nbo,,false\n");
    const res = await t.app.request(path, init);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.inserted, 2);
    assert.equal(body.dataset_id, "people");
    assert.deepEqual(body.columns, [
      { name: "name", type: "string" },
      { name: "age", type: "integer" },
      { name: "member", type: "boolean" },
    ]);
    const docs = [];
    for await (const b of t.store.stream({ db: "demo", collection: "people" })) docs.push(...b);
    assert.deepEqual(docs.map(({ _id, ...d }) => d), [
      { name: "ana", age: 31, member: true },
      { name: "bo", age: null, member: false },
    ]);
    assert.equal(res.headers.get("x-request-id")?.length, 36);
  } finally {
    await t.close();
  }
});

Deno.test("import: a malformed row is a 400 naming its line and nothing stays", async () => {
  const t = await testApp();
  try {
    const rows = ["a,b", ...Array.from({ length: 2500 }, (_, i) => `${i},${i}`), "oops"].join("\n");
    const { path, init } = csv(rows);
    const res = await t.app.request(path, init);
    assert.equal(res.status, 400);
    assert.match((await res.json()).detail, /line 2502: expected 2 fields, found 1/);
    assert.equal(await t.store.count({ db: "demo", collection: "people" }), 0);
    for (const body of ["", "a,b\n"]) {
      const empty = await t.app.request(csv(body).path, csv(body).init);
      assert.equal(empty.status, 400);
      assert.match((await empty.json()).detail, /holds no rows/);
    }
    assert.equal((await t.app.request("/dataset/people")).status, 404); // not catalogued either
  } finally {
    await t.close();
  }
});

Deno.test("import: NDJSON and JSON arrays; replace swaps the rows; another database is a 409", async () => {
  const t = await testApp();
  try {
    const nd = await t.app.request("/api/datasets/demo/points", {
      method: "POST",
      body: '{"x":1}\n{"x":2.5}\n',
      headers: { "content-type": "application/x-ndjson" },
    });
    assert.equal(nd.status, 200);
    assert.deepEqual((await nd.json()).columns, [{ name: "x", type: "number" }]);
    const js = await t.app.request("/api/datasets/demo/points?replace=true", {
      method: "POST",
      body: JSON.stringify([{ y: "a" }]),
      headers: { "content-type": "application/json" },
    });
    const body = await js.json();
    assert.equal(body.replaced, 2);
    assert.equal(body.rows, 1);
    const clash = await t.app.request("/api/datasets/other/points", {
      method: "POST",
      body: "[]",
      headers: { "content-type": "application/json" },
    });
    assert.equal(clash.status, 409);
    assert.match((await clash.json()).detail, /already exists in database 'demo'/);
  } finally {
    await t.close();
  }
});

Deno.test("import: bad names are 422 with a path loc; unknown format is 400; oversize is 413", async () => {
  const t = await testApp({ BODY_LIMIT_MB: "0.001" });
  try {
    const bad = await t.app.request("/api/datasets/demo/$bad", csv("a\n1").init);
    assert.equal(bad.status, 422);
    assert.deepEqual((await bad.json()).detail[0].loc, ["path", "collection_name"]);
    const own = await t.app.request("/api/datasets/tessera/x", csv("a\n1").init);
    assert.equal(own.status, 422);
    const fmt = await t.app.request("/api/datasets/demo/x", {
      method: "POST",
      body: "a",
      headers: { "content-type": "text/plain" },
    });
    assert.equal(fmt.status, 400);
    assert.match(JSON.stringify(await fmt.json()), /detail/);
    const big = await t.app.request("/api/datasets/demo/x", csv("a\n" + "1\n".repeat(2000)).init);
    assert.equal(big.status, 413);
    assert.equal(await t.store.count({ db: "demo", collection: "x" }), 0);
  } finally {
    await t.close();
  }
});
