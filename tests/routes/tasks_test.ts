import assert from "node:assert/strict";
import { jsonBody, testApp } from "../support/app.ts";

const task = {
  pipeline_name: "p1",
  database_name: "demo",
  data_collection_name: "loans",
  component: "spatial",
};

Deno.test("tasks: create, list with filters, get, patch to done sets ended_at, delete", async () => {
  const t = await testApp();
  try {
    const created = await t.app.request("/api/tasks/documents", jsonBody("POST", task));
    assert.equal(created.status, 201);
    assert.equal((await created.json()).status, "pending");
    assert.equal((await t.app.request("/api/tasks/documents", jsonBody("POST", task))).status, 409);
    await t.app.request(
      "/api/tasks/documents",
      jsonBody("POST", { ...task, data_collection_name: "b", component: "x" }),
    );

    const listed = await (await t.app.request("/api/tasks/documents?component=spatial")).json();
    assert.deepEqual(listed.map((d: { data_collection_name: string }) => d.data_collection_name), ["loans"]);
    assert.equal((await (await t.app.request("/api/tasks/documents?status=done")).json()).length, 0);

    const before = Date.now();
    const patched = await t.app.request("/api/tasks/document/loans", jsonBody("PATCH", { status: "done" }));
    const doc = await patched.json();
    assert.equal(doc.status, "done");
    const ended = Date.parse(doc.ended_at);
    assert.ok(ended >= before - 1000 && ended <= Date.now() + 1000);
    assert.ok(doc.ended_at.endsWith("Z"));

    const inProgress =
      await (await t.app.request("/api/tasks/document/b", jsonBody("PATCH", { status: "in_progress" })))
        .json();
    assert.equal(inProgress.ended_at, null);

    assert.equal((await t.app.request("/api/tasks/document/loans", { method: "DELETE" })).status, 200);
    assert.equal((await t.app.request("/api/tasks/document/loans")).status, 404);
    assert.equal((await t.app.request("/api/tasks/document/loans", { method: "DELETE" })).status, 404);
  } finally {
    await t.close();
  }
});

Deno.test("tasks: PATCH only takes status; unknown keys and missing fields are 422 with body locs", async () => {
  const t = await testApp();
  try {
    await t.app.request("/api/tasks/documents", jsonBody("POST", task));
    const extra = await t.app.request(
      "/api/tasks/document/loans",
      jsonBody("PATCH", { status: "done", component: "x" }),
    );
    assert.equal(extra.status, 422);
    assert.deepEqual((await extra.json()).detail, [
      { loc: ["body", "component"], msg: "Extra inputs are not permitted", type: "extra_forbidden" },
    ]);
    const missing = await t.app.request("/api/tasks/documents", jsonBody("POST", { database_name: "demo" }));
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
      (await t.app.request("/api/tasks/document/nope", jsonBody("PATCH", { status: "done" }))).status,
      404,
    );
  } finally {
    await t.close();
  }
});

Deno.test("tasks: switched off by configuration answers 503 with a clear message", async () => {
  const t = await testApp({ TASKS_ENABLED: "false" });
  try {
    const res = await t.app.request("/api/tasks/documents");
    assert.equal(res.status, 503);
    assert.match((await res.json()).detail, /TASKS_ENABLED=false/);
  } finally {
    await t.close();
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
