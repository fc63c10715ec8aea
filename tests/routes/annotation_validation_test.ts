/**
 * Spec 1's validation and authentication on every endpoint: FastAPI-shaped 422s for each required field
 * of every body (required-but-nullable keys included), wrong types, unknown keys and bad params; 401
 * without a token; the OpenAPI document listing every operation with its schemas and the bearer scheme.
 */
import assert from "node:assert/strict";
import { importCsv, jsonRequest, type StoreApp, storeTest } from "../support/stores.ts";

const CSV = "station_id,temp\nS-01,3.5\nS-02,4.5\n";

/** A valid body of each POST, and its required fields. */
const BODIES = (db: string): Record<string, { body: Record<string, unknown>; required: string[] }> => ({
  "/annotations": {
    body: { dataset_id: "stations", identifier: "x", annotation_function: "profile" },
    required: ["dataset_id", "identifier", "annotation_function"],
  },
  "/configuration": { body: { dataset_id: "stations", methods: null }, required: ["dataset_id", "methods"] },
  "/data_model_info": {
    body: {
      dataset_id: "stations",
      distribution_id: `${db}.stations`,
      data_model_id: "WeatherObserved",
      concept_name: null,
    },
    required: ["dataset_id", "distribution_id", "data_model_id", "concept_name"],
  },
  "/schema": {
    body: { dataset_id: "stations", distribution_id: null, fields: [] },
    required: ["dataset_id", "distribution_id", "fields"],
  },
});

const post = (t: StoreApp, path: string, body: unknown) => t.app.request(path, jsonRequest("POST", body));

async function detail(res: Response): Promise<unknown> {
  assert.equal(res.status, 422);
  return (await res.json()).detail;
}

storeTest("annotation 422: every required field of every body, null where the spec allows it", async (t) => {
  await importCsv(t, "stations", CSV);
  for (const [path, { body, required }] of Object.entries(BODIES(t.db))) {
    assert.equal((await post(t, path, body)).status, 200, `${path} accepts the full body (nulls included)`);
    for (const field of required) {
      const { [field]: _, ...rest } = body;
      assert.deepEqual(
        await detail(await post(t, path, rest)),
        [{ loc: ["body", field], msg: "Field required", type: "missing" }],
        `${path} without ${field}`,
      );
    }
    assert.deepEqual(await detail(await post(t, path, { ...body, extra: 1 })), [
      { loc: ["body", "extra"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
    ]);
    assert.deepEqual(await detail(await post(t, path, [body])), [
      { loc: ["body"], msg: "Input should be a valid dictionary", type: "dict_type" },
    ]);
  }
});

storeTest(
  "annotation 422: wrong types name the type FastAPI would; nullable only where the spec says",
  async (t) => {
    await importCsv(t, "stations", CSV);
    const b = BODIES(t.db);
    const str = ["string_type", "Input should be a valid string"];
    const cases: [string, Record<string, unknown>, string, string[]][] = [
      ["/schema", { ...b["/schema"].body, fields: {} }, "fields", [
        "list_type",
        "Input should be a valid list",
      ]],
      ["/schema", { ...b["/schema"].body, dataset_id: 7 }, "dataset_id", str],
      ["/data_model_info", { ...b["/data_model_info"].body, concept_name: 3 }, "concept_name", str],
      ["/data_model_info", { ...b["/data_model_info"].body, distribution_id: null }, "distribution_id", str],
      ["/configuration", { dataset_id: null, methods: [] }, "dataset_id", str],
      ["/annotations", { ...b["/annotations"].body, sample_id: 5 }, "sample_id", str],
    ];
    for (const [path, body, field, [type, msg]] of cases) {
      assert.deepEqual(
        await detail(await post(t, path, body)),
        [{ loc: ["body", field], msg, type }],
        `${path} ${field}`,
      );
    }
    const malformed = await t.app.request("/configuration", {
      method: "POST",
      body: "{nope",
      headers: { "content-type": "application/json" },
    });
    assert.deepEqual(await detail(malformed), [{
      loc: ["body"],
      msg: "JSON decode error",
      type: "json_invalid",
    }]);
  },
);

storeTest(
  "annotation 422: params, inline rows and sample_id are checked where they sit in the body",
  async (t) => {
    await importCsv(t, "stations", CSV);
    const run = (extra: Record<string, unknown>, fn = "profile") =>
      post(t, "/annotations", { dataset_id: "stations", identifier: "x", annotation_function: fn, ...extra });
    assert.deepEqual(await detail(await run({}, "concept_mapping")), [
      { loc: ["body", "params", "data_model_id"], msg: "Field required", type: "missing" },
    ]);
    assert.deepEqual(await detail(await run({ params: { data_model_id: 5 } }, "concept_mapping")), [
      {
        loc: ["body", "params", "data_model_id"],
        msg: "Input should be a valid string",
        type: "string_type",
      },
    ]);
    assert.deepEqual(await detail(await run({ params: { top: 0, bogus: 1 } })), [
      {
        loc: ["body", "params", "top"],
        msg: "Input should be greater than or equal to 1",
        type: "greater_than_equal",
      },
      { loc: ["body", "params", "bogus"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
    ]);
    assert.deepEqual(await detail(await run({ params: "top" })), [
      { loc: ["body", "params"], msg: "Input should be a valid dictionary", type: "dict_type" },
    ]);
    const unknownColumn = await run({ params: { columns: ["temp", "nope"] } });
    assert.equal(unknownColumn.status, 404); // a column the dataset lacks: the data decides (issue 36)
    const columns = (await unknownColumn.json()).detail as {
      loc: unknown[];
      msg: string;
    }[];
    assert.deepEqual(columns[0].loc, ["body", "params", "columns", 1]);
    // the message lists the dataset's columns, not just the ones asked for
    assert.equal(columns[0].msg, "no column 'nope' in dataset 'stations'; columns: station_id, temp");
    assert.deepEqual(await detail(await run({ data: 5 })), [{
      loc: ["body", "data"],
      msg: "data is one record (an object) or a non-empty list of records",
      type: "value_error",
    }]);
    assert.deepEqual(await detail(await run({ items: [{ a: 1 }, 2] })), [
      { loc: ["body", "items", 1], msg: "a record is a JSON object", type: "dict_type" },
    ]);
    assert.deepEqual(
      (await detail(await run({ data: { a: 1 }, items: [{ a: 1 }] })) as { loc: unknown }[])[0].loc,
      [
        "body",
        "items",
      ],
    );
    assert.deepEqual((await detail(await run({ sample_id: "head:0" })) as { loc: unknown }[])[0].loc, [
      "body",
      "sample_id",
    ]);
  },
);

storeTest("annotation 422: lengths answer in pydantic's words, path parameters included", async (t) => {
  await importCsv(t, "stations", CSV);
  const run = (identifier: string) =>
    post(t, "/annotations", { dataset_id: "stations", identifier, annotation_function: "profile" });
  assert.deepEqual(await detail(await run("")), [
    { loc: ["body", "identifier"], msg: "String should have at least 1 character", type: "string_too_short" },
  ]);
  assert.deepEqual(await detail(await run("x".repeat(257))), [
    {
      loc: ["body", "identifier"],
      msg: "String should have at most 256 characters",
      type: "string_too_long",
    },
  ]);
  assert.equal((await run("x".repeat(256))).status, 200);
  // the spec puts no type on path parameters; 256 characters is a safety cap, worded as FastAPI would
  const long = "x".repeat(300);
  for (const [path, name] of PATH_PARAMS) {
    assert.deepEqual(await detail(await t.app.request(`/${path}/${long}`)), [
      { loc: ["path", name], msg: "String should have at most 256 characters", type: "string_too_long" },
    ], path);
  }
});

storeTest(
  "annotation bodies are read as FastAPI reads them: any Content-Type as JSON, an empty body missing",
  async (t) => {
    await importCsv(t, "stations", CSV);
    const body = JSON.stringify({ dataset_id: "stations", methods: null });
    const send = (init: RequestInit) => t.app.request("/configuration", { method: "POST", ...init });
    // bytes, not a string: fetch would label a string body text/plain
    const bytes = new TextEncoder().encode(body);
    assert.equal(new Request("http://x", { method: "POST", body: bytes }).headers.get("content-type"), null);
    assert.equal((await send({ body: bytes })).status, 200, "no Content-Type");
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/json"]) {
      assert.equal((await send({ body, headers: { "content-type": type } })).status, 200, type);
    }
    const missing = [{ loc: ["body"], msg: "Field required", type: "missing" }];
    const types: Record<string, string>[] = [{}, { "content-type": "application/json" }, {
      "content-type": "text/plain",
    }];
    for (const headers of types) {
      assert.deepEqual(await detail(await send({ headers })), missing, JSON.stringify(headers));
      const empty = await send({ headers, body: new Uint8Array(0) });
      assert.deepEqual(await detail(empty), missing, JSON.stringify(headers));
    }
    assert.deepEqual(await detail(await send({ body: "{nope", headers: { "content-type": "text/plain" } })), [
      { loc: ["body"], msg: "JSON decode error", type: "json_invalid" },
    ]);
    const fields = await detail(await send({ body: new TextEncoder().encode('{"dataset_id": "stations"}') }));
    assert.deepEqual(fields, [{ loc: ["body", "methods"], msg: "Field required", type: "missing" }]);
  },
);

const PATH_PARAMS: [string, string][] = [
  ["annotations", "dataset_id"],
  ["configuration", "dataset_id"],
  ["model", "model_id"],
  ["dataset", "dataset_name"],
  ["data_model_info", "dataset_name"],
  ["schema", "dataset_name"],
];

const ENDPOINTS: [string, string][] = [
  ["GET", "/annotations/stations"],
  ["POST", "/annotations"],
  ["GET", "/procedures"],
  ["GET", "/configuration/stations"],
  ["POST", "/configuration"],
  ["GET", "/model"],
  ["GET", "/model/Place"],
  ["GET", "/dataset"],
  ["GET", "/dataset/stations"],
  ["GET", "/data_model_info/stations"],
  ["POST", "/data_model_info"],
  ["GET", "/schema/stations"],
  ["POST", "/schema"],
];

storeTest(
  "annotation 401: every endpoint wants a bearer token; a token from the realm opens them",
  async (t) => {
    for (const [method, path] of ENDPOINTS) {
      for (const headers of [{}, { authorization: "Bearer not-a-jwt" }] as Record<string, string>[]) {
        const res = await t.app.request(path, { method, headers, ...(method === "POST" && { body: "{}" }) });
        assert.equal(res.status, 401, `${method} ${path}`);
        assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer /);
      }
    }
    const form = { grant_type: "password", client_id: "tessera", client_secret: "tessera-secret" };
    const token = await t.app.request("/realms/tessera/protocol/openid-connect/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...form, username: "alice", password: "wonderland" }),
    });
    const { access_token } = await token.json();
    const ok = await t.app.request("/procedures", { headers: { authorization: `Bearer ${access_token}` } });
    assert.equal(ok.status, 200);
    const missing = await t.app.request("/dataset/nope", {
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.equal(missing.status, 404);
  },
  { auth: true },
);

/** The spec's statuses (200, and 422 where a path parameter or body can fail), 401, our 403 (roles) and 404s. */
const STATUSES: Record<string, string[]> = {
  "POST /annotations": ["200", "401", "403", "404", "409", "422"],
  "GET /procedures": ["200", "401", "403"],
  "GET /model": ["200", "401", "403"],
  "GET /dataset": ["200", "401", "403"],
};

storeTest(
  "annotation openapi: every operation with its body schema, its statuses and the bearer scheme",
  async (t) => {
    const doc = await (await t.app.request("/openapi.json")).json();
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
    });
    for (const [method, path] of ENDPOINTS) {
      const template = path.replace(/\/(stations|Place)$/, (_, name) => `/{${pathParam(path, name)}}`);
      const op = doc.paths[template]?.[method.toLowerCase()];
      assert.ok(op, `${method} ${template}`);
      assert.deepEqual(op.security, [{ bearerAuth: [] }]);
      const expected = STATUSES[`${method} ${path}`] ?? ["200", "401", "403", "404", "422"];
      assert.deepEqual(Object.keys(op.responses).sort(), expected, `${method} ${template} answers`);
    }
    const schemas = doc.components.schemas;
    assert.deepEqual(schemas.ModelInfo.required, [
      "dataset_id",
      "distribution_id",
      "data_model_id",
      "concept_name",
    ]);
    assert.deepEqual(schemas.ModelInfo.properties.concept_name.type, ["string", "null"]);
    assert.deepEqual(schemas.Schema.required, ["dataset_id", "distribution_id", "fields"]);
    assert.deepEqual(schemas.ConfigurationItem.required, ["dataset_id", "methods"]);
    assert.deepEqual(schemas.AnnotateItem.required, ["dataset_id", "identifier", "annotation_function"]);
    assert.equal(
      doc.paths["/annotations"].post.requestBody.content["application/json"].schema.$ref,
      "#/components/schemas/AnnotateItem",
    );
  },
);

function pathParam(path: string, _name: string): string {
  if (path.startsWith("/annotations") || path.startsWith("/configuration")) return "dataset_id";
  return path.startsWith("/model") ? "model_id" : "dataset_name";
}
