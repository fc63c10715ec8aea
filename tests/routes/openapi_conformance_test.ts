/**
 * Every answer is the documented one (issue 21, item 6), a fast sample of what `deno task fuzz` checks at
 * length: an unsupported method on a known path is a 405 with `Allow`; the answers of POST and GET /schema
 * satisfy their documented schema (checked by an independent JSON Schema validator, Ajv, against
 * /openapi.json itself); rules the server enforces are in the document too, so the document refuses what
 * the server refuses; a cleaning request without a body is the documented 400.
 */
import assert from "node:assert/strict";
import Ajv2020 from "ajv/dist/2020.js";
import { testApp } from "../support/app.ts";
import { importCsv, jsonRequest, storeTest } from "../support/stores.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;

/** A validator over the app's own /openapi.json: `valid(ref, value)` for a `#/...` pointer into it. */
function validatorOf(doc: Doc) {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(doc, "openapi");
  return (pointer: string, value: unknown): boolean => {
    const check = ajv.getSchema(`openapi${pointer}`);
    if (!check) throw new Error(`no schema at ${pointer}`);
    return check(value) as boolean;
  };
}

/** JSON Pointer escaping of one path segment (`/` → `~1`, `~` → `~0`). */
const seg = (s: string) => s.replaceAll("~", "~0").replaceAll("/", "~1");

/** The pointer of an operation's JSON request body schema, or of a 200 answer's. */
const bodyOf = (path: string, method: string) =>
  `#/paths/${seg(path)}/${method}/requestBody/content/application~1json/schema`;
const answerOf = (path: string, method: string) =>
  `#/paths/${seg(path)}/${method}/responses/200/content/application~1json/schema`;

/** A raw HTTP/1.1 exchange (fetch refuses TRACE), on a server bound to a loopback port for the test. */
async function rawRequest(port: number, method: string, path: string) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(
      new TextEncoder().encode(`${method} ${path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n`),
    );
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(16384);
    for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) chunks.push(buf.slice(0, n));
    const text = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
    const [head, ...rest] = text.split("\r\n\r\n");
    const [status, ...lines] = head.split("\r\n");
    const headers = new Map(
      lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
    );
    return { status: Number(status.split(" ")[1]), headers, body: rest.join("\r\n\r\n") };
  } finally {
    conn.close();
  }
}

Deno.test("methods: an unsupported method on a known path is a 405 listing the path's methods in Allow", async () => {
  const t = await testApp();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, t.app.fetch);
  try {
    const port = server.addr.port;
    // the methods each path is served with, by hand from the route definitions (HEAD with GET, OPTIONS always)
    const cases: [string, string, string][] = [
      ["TRACE", "/healthz", "GET, HEAD, OPTIONS"],
      ["TRACE", "/schema", "POST, OPTIONS"],
      ["DELETE", "/run/", "POST, OPTIONS"],
      ["PUT", "/api/tasks/document/loans", "GET, HEAD, PATCH, DELETE, OPTIONS"],
      ["TRACE", "/api/spatial-hitl/task/loans/runs/r1/maps/fair_map_html", "GET, HEAD, OPTIONS"],
    ];
    // and every path of /openapi.json: Allow lists exactly its documented methods (what the fuzz checks)
    const order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
    const doc = await (await t.app.request("/openapi.json")).json();
    for (const [template, item] of Object.entries(doc.paths as Record<string, object>)) {
      const methods = new Set(Object.keys(item).map((m) => m.toUpperCase()));
      if (methods.has("GET")) methods.add("HEAD");
      methods.add("OPTIONS");
      cases.push([
        "TRACE",
        template.replace(/\{[^}]+\}/g, "x1"),
        order.filter((m) => methods.has(m)).join(", "),
      ]);
    }
    for (const [method, path, allow] of cases) {
      const res = await rawRequest(port, method, path);
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get("allow"), allow, `${method} ${path}`);
      assert.match(JSON.parse(res.body).detail, /^Method Not Allowed/);
    }
    const options = await rawRequest(port, "OPTIONS", "/api/tasks/documents");
    assert.equal(options.status, 204);
    assert.equal(options.headers.get("allow"), "GET, HEAD, POST, OPTIONS");
    // HEAD keeps working where GET does, an unknown path stays a 404, and the console keeps its own pages
    assert.equal((await rawRequest(port, "HEAD", "/healthz")).status, 200);
    assert.equal((await rawRequest(port, "HEAD", "/run/")).status, 405);
    const unknown = await rawRequest(port, "TRACE", "/no/such/path");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get("allow"), undefined);
    assert.notEqual((await rawRequest(port, "TRACE", "/console/tasks")).status, 405);
  } finally {
    await server.shutdown();
    await t.close();
  }
});

storeTest("openapi: the answers of POST and GET /schema satisfy the documented schema", async (t) => {
  await importCsv(t, "stations", "station_id,temp\nS-01,3.5\n");
  const doc = await (await t.app.request("/openapi.json")).json();
  const valid = validatorOf(doc);
  const body = { dataset_id: "stations", distribution_id: null, fields: [{ name: "temp", type: "number" }] };
  assert.ok(valid(bodyOf("/schema", "post"), body));
  const saved = await t.app.request("/schema", jsonRequest("POST", body));
  assert.equal(saved.status, 200);
  const answer = await saved.json();
  assert.ok(valid(answerOf("/schema", "post"), answer), "POST /schema answer against its 200 schema");
  const listed = await (await t.app.request("/schema/stations")).json();
  assert.equal(listed.length, 1);
  assert.ok(valid(answerOf("/schema/{dataset_name}", "get"), listed), "GET /schema answer");
  // the record satisfies its component alone, and the component is not the closed request shape
  assert.ok(valid("#/components/schemas/SchemaRecord", listed[0]));
  assert.equal(valid("#/components/schemas/Schema", listed[0]), false, "the request schema stays closed");
  const info = {
    dataset_id: "stations",
    distribution_id: `${t.db}.stations`,
    data_model_id: "WeatherObserved",
    concept_name: null,
  };
  const stored = await t.app.request("/data_model_info", jsonRequest("POST", info));
  assert.equal(stored.status, 200);
  assert.ok(valid(answerOf("/data_model_info", "post"), await stored.json()), "POST /data_model_info answer");
});

Deno.test("openapi: rules the server enforces are in the document, which refuses what the server refuses", async () => {
  const t = await testApp();
  try {
    const doc = await (await t.app.request("/openapi.json")).json();
    const valid = validatorOf(doc);
    const task = "/api/spatial-hitl/task/{data_collection_name}";
    // [pointer, a value the document and the server accept, values both refuse]
    const polygon = (points: unknown[]) => ({ region: [{ polygon: points }] });
    const square = [[0, 0], [0, 1], [1, 1]];
    const annotate = { dataset_id: "d", identifier: "x", annotation_function: "profile" };
    const cases: [string, unknown, unknown[]][] = [
      // a polygon point is [lon, lat]: two numbers, not fewer or more
      [bodyOf(`${task}/audit`, "post"), polygon(square), [
        polygon([[], [], []]),
        polygon([[0], [0, 1], [1, 1]]),
        polygon([[0, 0, 0], [0, 1], [1, 1]]),
      ]],
      // annotation_function is one of GET /procedures; data and items not both, records are objects
      [bodyOf("/annotations", "post"), annotate, [
        { ...annotate, annotation_function: "" },
        { ...annotate, annotation_function: "ocr" },
        { ...annotate, data: { a: 1 }, items: [{ a: 1 }] },
        { ...annotate, data: 5 },
        { ...annotate, items: [] },
        { ...annotate, params: { top: 0 } },
        { ...annotate, sample_id: "head:0" },
        { ...annotate, annotation_function: "concept_mapping" }, // needs params.data_model_id
      ]],
      // a run's method belongs to its task and dtype; date_col only for time series; params by method
      [bodyOf("/run/", "post"), { data: "d", task: "detect", dtype: "tabular", method: "iqr" }, [
        { data: "d", task: "detect", dtype: "tabular", method: "0" },
        { data: "d", task: "detect", dtype: "tabular", method: "iqr", date_col: "t" },
        { data: "d", task: "impute", dtype: "timeseries", method: "time" },
        { data: "d", task: "detect", dtype: "tabular", method: "iqr", params: { window: 3 } },
        { data: "d", task: "detect", dtype: "timeseries", method: "threshold", date_col: "t", params: {} },
      ]],
      // preds or run_id, not both; never a mapping key's name
      [bodyOf(`${task}/mitigate/writeback`, "post"), { new_field: "y_fair", run_id: "r1" }, [
        { new_field: "y_fair", run_id: "r1", preds: [{ doc_id: "a", y_pred: 1 }] },
        { new_field: "y_fair" },
        { new_field: "y_pred", run_id: "r1" },
      ]],
    ];
    for (const [pointer, ok, bad] of cases) {
      assert.ok(valid(pointer, ok), `${pointer} accepts ${JSON.stringify(ok)}`);
      for (const b of bad) assert.equal(valid(pointer, b), false, `${pointer} refuses ${JSON.stringify(b)}`);
    }
    // the server refuses them too: a sample, each before it looks for data
    const refused = async (path: string, body: unknown, status = 422) => {
      const res = await t.app.request(path, jsonRequest("POST", body));
      assert.equal(res.status, status, `${path} ${JSON.stringify(body)}: ${await res.clone().text()}`);
      return (await res.json()).detail;
    };
    await refused("/api/spatial-hitl/task/loans/audit", polygon([[], [], []]));
    await refused("/annotations", { ...annotate, annotation_function: "" });
    await refused("/annotations", { ...annotate, data: { a: 1 }, items: [{ a: 1 }] });
    await refused("/run/", { data: "d", task: "detect", dtype: "tabular", method: "0" }, 400);
    // a page is at most 2^53 - 1, and the document says so
    const page = doc.paths["/jobs/{job_id}"].get.parameters.find((p: { name: string }) => p.name === "page");
    assert.equal(page.schema.maximum, Number.MAX_SAFE_INTEGER);
    assert.equal((await t.app.request("/jobs/j1?page=9007199254740993")).status, 400);
    // a list of fields names at least one, none empty
    const fields = doc.paths["/api/datasets/{database_name}/{collection_name}"].get.parameters
      .find((p: { name: string }) => p.name === "fields");
    const pattern = new RegExp(fields.schema.pattern, "u");
    assert.deepEqual(["a", "a, b", "", ",", "a,", " , a"].map((v) => pattern.test(v)), [
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
    assert.equal((await t.app.request("/api/datasets/db1/loans?fields=")).status, 422);
  } finally {
    await t.close();
  }
});

Deno.test("cleaning: /run/ and /approve/ without a body answer the documented 400 naming the body", async () => {
  const t = await testApp();
  try {
    const doc = await (await t.app.request("/openapi.json")).json();
    for (const path of ["/run/", "/approve/"]) {
      const documented = Object.keys(doc.paths[path].post.responses);
      assert.ok(documented.includes("400") && !documented.includes("422"), `${path}: ${documented}`);
      for (
        const init of [{ method: "POST" }, {
          method: "POST",
          headers: { "content-type": "application/json" },
        }]
      ) {
        const res = await t.app.request(path, init);
        assert.equal(res.status, 400, path);
        assert.deepEqual(await res.json(), {
          detail: [{ loc: ["body"], msg: "Field required", type: "missing" }],
        });
      }
    }
    // other areas keep their 422 for a missing body
    const res = await t.app.request("/annotations", { method: "POST" });
    assert.equal(res.status, 422);
    assert.deepEqual((await res.json()).detail, [{ loc: ["body"], msg: "Field required", type: "missing" }]);
  } finally {
    await t.close();
  }
});

Deno.test("annotation: a profile of values near the largest double answers numbers, as documented", async () => {
  const t = await testApp();
  try {
    const doc = await (await t.app.request("/openapi.json")).json();
    const valid = validatorOf(doc);
    const M = Number.MAX_VALUE; // 1.7976931348623157e308
    const res = await t.app.request(
      "/annotations",
      jsonRequest("POST", {
        dataset_id: "d",
        identifier: "huge",
        annotation_function: "profile",
        items: [{ v: -M }, { v: 1e308 }, { v: M }],
      }),
    );
    assert.equal(res.status, 200);
    const answer = await res.json();
    assert.ok(valid(answerOf("/annotations", "post"), answer), "the answer satisfies its documented schema");
    const [col] = answer.result.columns;
    // by hand: mean (−M + 1e308 + M) / 3; q1 halfway between −M and 1e308; q3 halfway between 1e308 and M;
    // the fences q1 − 1.5·IQR and q3 + 1.5·IQR lie beyond the doubles, so they are ∓M and nothing is out
    const close = (a: number, b: number) => Math.abs(a - b) <= Math.abs(b) * 1e-12;
    assert.ok(close(col.numeric.mean, 1e308 / 3), String(col.numeric.mean));
    assert.ok(close(col.numeric.q1, (1e308 - M) / 2), String(col.numeric.q1));
    assert.ok(close(col.numeric.q3, 1e308 + (M - 1e308) / 2), String(col.numeric.q3));
    assert.equal(col.numeric.median, 1e308);
    assert.ok(Number.isFinite(col.numeric.std) && col.numeric.std > 1e308, String(col.numeric.std));
    assert.deepEqual([col.outliers.lower, col.outliers.upper, col.outliers.count], [-M, M, 0]);
  } finally {
    await t.close();
  }
});
