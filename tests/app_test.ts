import { WorkerPool } from "../workers/pool.ts";
import { LimitError } from "../core/errors.ts";
import assert from "node:assert/strict";
import { createApp } from "../app.ts";
import { loadConfig } from "../config.ts";
import { newRouter } from "../routes/env.ts";
import { MongoStore } from "../store/mongo.ts";
import { testApp } from "./support/app.ts";

Deno.test("openapi: 3.1 document lists the routes with the bearer scheme and the 422 shape", async () => {
  const t = await testApp();
  try {
    const doc = await (await t.app.request("/openapi.json")).json();
    assert.equal(doc.openapi, "3.1.0");
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
      type: "http",
      scheme: "bearer",
      bearerFormat: "JWT",
    });
    const patch = doc.paths["/api/tasks/document/{collection_name}"].patch;
    assert.deepEqual(patch.security, [{ bearerAuth: [] }]);
    assert.ok(patch.responses["422"]);
    assert.ok(doc.paths["/api/datasets/{database_name}/{collection_name}"].post);
    assert.ok(doc.components.schemas.HTTPValidationError);
  } finally {
    await t.close();
  }
});

Deno.test("docs: the reference page and its script are served by Tessera itself", async () => {
  const t = await testApp();
  try {
    const page = await (await t.app.request("/docs")).text();
    assert.match(page, /\/docs\/swagger-ui-bundle\.js/);
    const js = await t.app.request("/docs/swagger-ui-bundle.js");
    assert.equal(js.status, 200);
    assert.ok((await js.text()).length > 500_000);
  } finally {
    await t.close();
  }
});

Deno.test("errors: an unexpected throw is a 500 carrying the request id and no stack trace", async () => {
  const boom = newRouter();
  boom.get("/boom", () => {
    throw new Error("secret internals at /work/main/x.ts:1");
  });
  const t = await testApp({}, { extraRoutes: [boom] });
  const log = console.error;
  console.error = () => {};
  try {
    const res = await t.app.request("/boom", { headers: { "x-request-id": "req-123" } });
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { detail: "internal server error", request_id: "req-123" });
    assert.equal(res.headers.get("x-request-id"), "req-123");
  } finally {
    console.error = log;
    await t.close();
  }
});

Deno.test("errors: work stopped by its limit is a 503 that names the limit", async () => {
  const slow = newRouter();
  slow.get("/slow", () => {
    throw new LimitError("time limit of 600 s reached");
  });
  const t = await testApp({}, { extraRoutes: [slow] });
  try {
    const res = await t.app.request("/slow");
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), {
      detail: "the computation was stopped: time limit of 600 s reached",
    });
  } finally {
    await t.close();
  }
});

Deno.test("errors: a store that is down is a 503 on readyz and on data routes, within seconds", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const store = await MongoStore.connect(`mongodb://127.0.0.1:${port}/`, { serverSelectionTimeoutMS: 500 });
  const config = loadConfig({
    LOG_LEVEL: "silent",
    AUTH_MODE: "off",
    MONGO_URL: `mongodb://127.0.0.1:${port}/`,
  });
  const app = createApp({
    config,
    store,
    verifier: null,
    pool: new WorkerPool(new URL("../workers/worker.ts", import.meta.url)),
  });
  try {
    const t0 = Date.now();
    const ready = await app.request("/readyz");
    assert.equal(ready.status, 503);
    const tasks = await app.request("/api/tasks/documents");
    assert.equal(tasks.status, 503);
    assert.match((await tasks.json()).detail, /store is unavailable/);
    assert.ok(Date.now() - t0 < 5000);
    assert.equal((await app.request("/healthz")).status, 200);
  } finally {
    await store.close();
  }
});

Deno.test("config: defaults, and a bad variable is named", () => {
  const c = loadConfig({});
  assert.equal(c.PORT, 8000);
  assert.equal(c.KV_PATH, "./data/tessera.kv");
  assert.equal(c.AUTH_MODE, "local");
  assert.equal(c.users.size, 0);
  assert.deepEqual([...loadConfig({}, { dev: true }).users], [["demo", "demo"]]);
  assert.equal(c.publicUrl, "http://localhost:8000");
  assert.throws(() => loadConfig({ PORT: "x" }), /PORT/);
  assert.throws(() => loadConfig({ TESSERA_USERS: "nopass" }), /TESSERA_USERS/);
  assert.throws(() => loadConfig({ AUTH_MODE: "oidc" }), /OIDC_JWKS_URL/);
  assert.ok(c.BODY_LIMIT_MB * 1024 * 1024 >= 100e6);
});
