/**
 * JSON nesting is limited to 64 levels (core/json_depth.ts) wherever a request brings free JSON: an
 * imported row's fields (JSON array and NDJSON), task `metadata`, the annotation bodies' free fields and
 * the cleaning `params` and `approval_info`. Deeper is a 4xx that names the field (and, on an import, the
 * row), never a 500 from the store's serialiser or the worker's structured clone, and nothing is kept.
 */
import assert from "node:assert/strict";
import { importCsv, jsonRequest, type StoreApp, storeTest } from "../support/stores.ts";

/** JSON text of `levels` arrays around a scalar: `nest(1)` is `[1]`, of depth 1 (refused values only: FerretDB stores no array directly in an array). */
const nest = (levels: number) => "[".repeat(levels) + "1" + "]".repeat(levels);
/** The same depth with objects and arrays alternating (`{"k":[{"k":...}]}`). */
const nestMixed = (levels: number) => {
  let s = "1";
  for (let i = 0; i < levels; i++) s = i % 2 ? `[${s}]` : `{"k":${s}}`;
  return s;
};
const DEEP = 6_000; // what made the store's serialiser overflow its stack

const raw = (t: StoreApp, path: string, body: string, contentType = "application/json", method = "POST") =>
  t.app.request(path, { method, body, headers: { "content-type": contentType } });

async function rows(t: StoreApp, collection: string) {
  const out = [];
  for await (const b of t.store.stream({ db: t.db, collection })) out.push(...b);
  return out;
}

storeTest("json depth: an import with a row nested 6,000 levels is a 400 naming row and field", async (t) => {
  const url = (name: string) => `/api/datasets/${t.db}/${name}`;
  const array = await raw(t, url("deep_array"), `[{"a": 1}, {"a": 2}, {"a": 3, "x": ${nest(DEEP)}}]`);
  assert.equal(array.status, 400);
  const arrayDetail = (await array.json()).detail as string;
  assert.match(arrayDetail, /^item 2\b/);
  assert.match(arrayDetail, /'x'/);
  assert.match(arrayDetail, /64 levels/);

  const ndjson = ['{"a": 1}', "", `{"a": 2, "y": ${nestMixed(DEEP)}}`, '{"a": 3}'].join("\n");
  const nd = await raw(t, url("deep_nd"), ndjson, "application/x-ndjson");
  assert.equal(nd.status, 400);
  const ndDetail = (await nd.json()).detail as string;
  assert.match(ndDetail, /^line 3\b/);
  assert.match(ndDetail, /'y'/);

  // nothing was kept: no rows, no dataset
  assert.deepEqual(await rows(t, "deep_array"), []);
  assert.deepEqual(await rows(t, "deep_nd"), []);
  assert.equal((await t.app.request("/dataset/deep_array")).status, 404);
  assert.equal((await t.app.request("/dataset/deep_nd")).status, 404);
});

storeTest("json depth: 64 levels in a row's field are imported and read back; 65 are refused", async (t) => {
  const url = `/api/datasets/${t.db}/edge`;
  // the row is not a level of its fields: x holds 64 nested objects and arrays
  const ok = await raw(
    t,
    url,
    `{"a": 1, "x": ${nestMixed(64)}}\n{"a": 2, "x": ${nestMixed(63)}}\n`,
    "application/x-ndjson",
  );
  assert.equal(ok.status, 200, await ok.clone().text());
  const back = await rows(t, "edge");
  assert.equal(JSON.stringify(back[0].x), nestMixed(64));
  assert.equal(JSON.stringify(back[1].x), nestMixed(63));

  const over = await raw(t, `${url}_over`, `[{"a": 1, "x": ${nest(65)}}]`);
  assert.equal(over.status, 400);
  assert.match((await over.json()).detail, /^item 0\b.*'x'/);
});

storeTest("json depth: task metadata deeper than 64 levels is a 422 at [body, metadata]", async (t) => {
  const task = (metadata: string, name = "loans") =>
    `{"database_name": "${t.db}", "data_collection_name": "${name}", "metadata": ${metadata}}`;
  for (const deep of [`{"x": ${nest(DEEP)}}`, `{"x": ${nest(64)}}`]) { // metadata is itself a level
    const res = await raw(t, "/api/tasks/documents", task(deep));
    assert.equal(res.status, 422);
    const [item] = (await res.json()).detail;
    assert.deepEqual(item.loc, ["body", "metadata"]);
    assert.match(item.msg, /more than 64 levels/);
  }
  assert.equal((await t.app.request("/api/tasks/document/loans")).status, 404);

  const ok = await raw(t, "/api/tasks/documents", task(`{"x": ${nestMixed(63)}}`, "edge"));
  assert.equal(ok.status, 201);
  const doc = await (await t.app.request("/api/tasks/document/edge")).json();
  assert.equal(JSON.stringify(doc.metadata.x), nestMixed(63));
});

storeTest("json depth: the annotation and cleaning bodies' free fields are limited too", async (t) => {
  const deep = nest(DEEP);
  const cases: [string, string, (string | number)[], number][] = [
    ["/configuration", `{"dataset_id": "d", "methods": ${deep}}`, ["body", "methods"], 422],
    ["/schema", `{"dataset_id": "d", "distribution_id": null, "fields": [${deep}]}`, ["body", "fields"], 422],
    [
      "/annotations",
      `{"dataset_id": "d", "identifier": "i", "annotation_function": "profile", "data": [{"x": ${deep}}]}`,
      ["body", "data"],
      422,
    ],
    [
      "/annotations",
      `{"dataset_id": "d", "identifier": "i", "annotation_function": "profile", "data": [], ` +
      `"params": {"columns": ${deep}}}`,
      ["body", "params"],
      422,
    ],
    [
      "/annotations",
      `{"dataset_id": "d", "identifier": "i", "annotation_function": "profile", "items": ${deep}}`,
      ["body", "items"],
      422,
    ],
    [
      "/run/",
      `{"data": "d", "task": "impute", "dtype": "tabular", "method": "mean", "params": {"x": ${deep}}}`,
      ["body", "params"],
      400,
    ],
    ["/approve/", `{"job_id": "j", "approval_info": {"note": ${deep}}}`, ["body", "approval_info"], 400],
  ];
  for (const [path, body, loc, status] of cases) {
    const res = await raw(t, path, body);
    assert.equal(res.status, status, `${path} ${loc.join(".")}`);
    const detail = (await res.json()).detail;
    const item = detail.find((d: { loc: unknown[] }) => d.loc.join(".") === loc.join("."));
    assert.ok(item, `${path}: ${JSON.stringify(detail)}`);
    // approval_info is kept one level down, inside the job's approval: one level less
    assert.match(item.msg, path === "/approve/" ? /more than 63 levels/ : /more than 64 levels/);
  }
  // nothing stored: the configuration was refused before the store
  assert.equal((await t.app.request("/configuration/d")).status, 404);
  // the limit is in the OpenAPI descriptions of these fields
  const doc = await (await t.app.request("/openapi.json")).json();
  const props = (name: string) => doc.components.schemas[name].properties;
  for (
    const [schema, field] of [
      ["TaskDocument", "metadata"],
      ["ConfigurationItem", "methods"],
      ["AnnotateItem", "data"],
      ["RunRequest", "params"],
      ["ApproveRequest", "approval_info"],
    ]
  ) {
    const levels = field === "approval_info" ? /63 levels/ : /64 levels/;
    assert.match(String(props(schema)[field].description), levels, `${schema}.${field}`);
  }
});

storeTest("json depth: a body at the limit is accepted where it is stored", async (t) => {
  await importCsv(t, "d", "a,b\n1,2\n");
  const methods = `{"profile": {"top": 3, "x": ${nestMixed(62)}}}`; // methods 1 + profile 1 + x 62 = 64
  const res = await t.app.request(
    "/configuration",
    {
      method: "POST",
      body: `{"dataset_id": "d", "methods": ${methods}}`,
      headers: { "content-type": "application/json" },
    },
  );
  assert.ok(res.status === 200 || res.status === 201, `${res.status} ${await res.clone().text()}`);
  const back = await (await t.app.request("/configuration/d")).json();
  assert.equal(JSON.stringify(back.methods.profile.x), nestMixed(62));
  // and a task whose metadata holds the same
  const made = await t.app.request(
    "/api/tasks/documents",
    jsonRequest("POST", {
      database_name: t.db,
      data_collection_name: "c",
      metadata: { x: JSON.parse(nestMixed(63)) },
    }),
  );
  assert.equal(made.status, 201);
});
