import assert from "node:assert/strict";
import { testApp } from "../support/app.ts";
import { jsonRequest, storeTest } from "../support/stores.ts";
import type { Deps } from "../../routes/http/env.ts";
import { newRouter } from "../../routes/http/router.ts";
import { onError } from "../../routes/http/error_answers.ts";
import { loadConfig } from "../../config.ts";
import { taskRoutes } from "../../routes/tasks/tasks.index.ts";
import { spatialRoutes } from "../../routes/spatial/spatial.index.ts";
import { mitigationRoutes } from "../../routes/mitigation/mitigation.index.ts";

const task = {
  pipeline_name: "p1",
  database_name: "demo",
  data_collection_name: "loans",
  component: "spatial",
};

const names = (docs: { data_collection_name: string }[]) => docs.map((d) => d.data_collection_name).sort();

storeTest("tasks: create, list with status/component filters, get, patch, delete", async (t) => {
  const created = await t.app.request("/api/tasks/documents", jsonRequest("POST", task));
  assert.equal(created.status, 201);
  const doc = await created.json();
  assert.equal(doc.status, "pending");
  assert.equal(doc.ended_at, null);
  assert.ok(doc.started_at.endsWith("Z"));
  assert.equal((await t.app.request("/api/tasks/documents", jsonRequest("POST", task))).status, 409);
  for (const [name, component, status] of [["b", "x", "pending"], ["c", "spatial", "done"]]) {
    const res = await t.app.request(
      "/api/tasks/documents",
      jsonRequest("POST", { ...task, data_collection_name: name, component, status }),
    );
    assert.equal(res.status, 201);
  }
  const list = async (query: string) =>
    names(await (await t.app.request(`/api/tasks/documents${query}`)).json());
  assert.deepEqual(await list(""), ["b", "c", "loans"]);
  assert.deepEqual(await list("?component=spatial"), ["c", "loans"]);
  assert.deepEqual(await list("?status=pending"), ["b", "loans"]);
  assert.deepEqual(await list("?status=done&component=spatial"), ["c"]);
  assert.deepEqual(await list("?status=done&component=x"), []);

  const got = await t.app.request("/api/tasks/document/loans");
  assert.equal(got.status, 200);
  assert.deepEqual(await got.json(), doc);

  const before = Date.now();
  const patched = await t.app.request("/api/tasks/document/loans", jsonRequest("PATCH", { status: "done" }));
  assert.equal(patched.status, 200);
  const done = await patched.json();
  assert.equal(done.status, "done");
  // ISO 8601 in UTC: YYYY-MM-DDTHH:MM:SS(.sss)Z, and now
  assert.match(done.ended_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  const ended = Date.parse(done.ended_at);
  assert.ok(ended >= before - 1000 && ended <= Date.now() + 1000);
  assert.deepEqual({ ...done, status: doc.status, ended_at: null }, doc); // nothing else changed
  assert.deepEqual(await (await t.app.request("/api/tasks/document/loans")).json(), done); // stored
  assert.deepEqual(await list("?status=done&component=spatial"), ["c", "loans"]);

  const inProgress = await t.app.request(
    "/api/tasks/document/b",
    jsonRequest("PATCH", { status: "in_progress" }),
  );
  assert.equal((await inProgress.json()).ended_at, null);

  const deleted = await t.app.request("/api/tasks/document/loans", { method: "DELETE" });
  assert.equal(deleted.status, 200);
  assert.deepEqual(await deleted.json(), { deleted: "loans" });
  assert.equal((await t.app.request("/api/tasks/document/loans")).status, 404);
  assert.equal((await t.app.request("/api/tasks/document/loans", { method: "DELETE" })).status, 404);
  assert.equal(
    (await t.app.request("/api/tasks/document/loans", jsonRequest("PATCH", { status: "done" }))).status,
    404,
  );
  assert.deepEqual(await list(""), ["b", "c"]);
});

storeTest(
  "tasks: PATCH only takes status; unknown keys and missing fields are 422 with body locs",
  async (t) => {
    await t.app.request("/api/tasks/documents", jsonRequest("POST", task));
    const extra = await t.app.request(
      "/api/tasks/document/loans",
      jsonRequest("PATCH", { status: "done", component: "x" }),
    );
    assert.equal(extra.status, 422);
    assert.deepEqual((await extra.json()).detail, [
      { loc: ["body", "component"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
    ]);
    const noStatus = await t.app.request("/api/tasks/document/loans", jsonRequest("PATCH", {}));
    assert.deepEqual((await noStatus.json()).detail, [
      { loc: ["body", "status"], msg: "Field required", type: "missing" },
    ]);
    // the document is as it was
    assert.equal((await (await t.app.request("/api/tasks/document/loans")).json()).component, "spatial");
    const missing = await t.app.request(
      "/api/tasks/documents",
      jsonRequest("POST", { database_name: "demo" }),
    );
    assert.deepEqual((await missing.json()).detail, [
      { loc: ["body", "data_collection_name"], msg: "Field required", type: "missing" },
    ]);
    const malformed = await t.app.request("/api/tasks/documents", {
      method: "POST",
      body: "{nope",
      headers: { "content-type": "application/json" },
    });
    assert.equal(malformed.status, 422);
    assert.equal((await malformed.json()).detail[0].type, "json_invalid");
    assert.equal(
      (await t.app.request("/api/tasks/document/nope", jsonRequest("PATCH", { status: "done" }))).status,
      404,
    );
  },
);

const spatialBase = "/api/spatial-hitl/task/loans";

/** Every task route and every spatial-hitl route, each with a body it would accept when enabled. */
const routes: [string, string, unknown?][] = [
  ["GET", "/api/tasks/documents"],
  ["POST", "/api/tasks/documents", task],
  ["GET", "/api/tasks/document/loans"],
  ["PATCH", "/api/tasks/document/loans", { status: "done" }],
  ["DELETE", "/api/tasks/document/loans"],
  ["GET", `${spatialBase}/dataset-columns`],
  ["POST", `${spatialBase}/audit`, {}],
  ["POST", `${spatialBase}/mitigate/relabel`, {}],
  ["POST", `${spatialBase}/mitigate/threshold`, {}],
  ["POST", `${spatialBase}/mitigate/writeback`, { new_field: "y_fair", preds: [{ doc_id: "a", y_pred: 1 }] }],
];

storeTest(
  "tasks switched off (TASKS_ENABLED=false): every task and spatial-hitl route answers 503",
  async (t) => {
    for (const [method, path, body] of routes) {
      for (const payload of body === undefined ? [undefined] : [body, { surprise: 1 }]) {
        const init = payload === undefined ? { method } : jsonRequest(method, payload);
        const res = await t.app.request(path, init);
        const what = `${method} ${path} ${JSON.stringify(payload)}`;
        assert.equal(res.status, 503, what);
        assert.deepEqual(await res.json(), {
          detail: "task documents are disabled on this deployment (TASKS_ENABLED=false)",
        }, what);
      }
    }
  },
  { env: { TASKS_ENABLED: "false" } },
);

Deno.test("tasks switched off: the 503 comes before validation whatever order the groups are mounted in", async () => {
  const config = loadConfig({ LOG_LEVEL: "silent", AUTH_MODE: "off", TASKS_ENABLED: "false" });
  // the groups only read the configuration before answering 503: no store or pool is reached
  const deps = { config, verifier: null } as unknown as Deps;
  const groups = [mitigationRoutes, spatialRoutes, taskRoutes];
  for (const order of [groups, [...groups].reverse()]) {
    const app = newRouter();
    app.use("*", async (c, next) => {
      c.set("deps", deps);
      await next();
    });
    for (const group of order) app.route("/", group());
    app.onError(onError);
    for (const [method, path, body] of routes) {
      const init = body === undefined ? { method } : jsonRequest(method, { surprise: 1 });
      const res = await app.request(path, init);
      assert.equal(res.status, 503, `${method} ${path}`);
    }
  }
});

Deno.test("unknown routes are a JSON 404", async () => {
  const t = await testApp();
  try {
    const res = await t.app.request("/nowhere");
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { detail: "Not Found" });
  } finally {
    await t.close();
  }
});

storeTest("tasks: of concurrent creates of one task, exactly one is 201 and the others 409", async (t) => {
  const racing = Array.from(
    { length: 5 },
    (_, i) => t.app.request("/api/tasks/documents", jsonRequest("POST", { ...task, status: `s${i}` })),
  );
  const statuses = (await Promise.all(racing)).map((r) => r.status).sort();
  assert.deepEqual(statuses, [201, 409, 409, 409, 409]);
});
