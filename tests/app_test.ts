import { WorkerPool } from "../workers/pool.ts";
import { LimitError } from "../core/errors.ts";
import assert from "node:assert/strict";
import { createApp } from "../app.ts";
import { loadConfig } from "../config.ts";
import { newRouter } from "../routes/http/router.ts";
import { MongoStore } from "../store/mongo.ts";
import { authTestApp, captureConsole, testApp } from "./support/app.ts";
import { storeTest } from "./support/stores.ts";

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

Deno.test("auth: every operation of /openapi.json that declares security is a 401 without a token", async () => {
  const t = await authTestApp();
  try {
    const doc = await (await t.app.request("/openapi.json")).json();
    const walked: string[] = [];
    const open: string[] = [];
    for (
      const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { security?: [] }>>)
    ) {
      for (const [method, op] of Object.entries(ops)) {
        if (!op.security) {
          open.push(`${method.toUpperCase()} ${path}`);
          continue;
        }
        assert.deepEqual(op.security, [{ bearerAuth: [] }], `${method} ${path}`);
        // a well-formed body and harmless path values, so only the missing token can refuse the request
        const url = path.replace(/\{[^}]+\}/g, "probe");
        const res = await t.app.request(
          url,
          method === "get"
            ? {}
            : { method: method.toUpperCase(), body: "{}", headers: { "content-type": "application/json" } },
        );
        const where = `${method.toUpperCase()} ${url}`;
        assert.equal(res.status, 401, where);
        const challenge = res.headers.get("www-authenticate") ?? "";
        assert.match(challenge, /^Bearer /, where);
        assert.match(challenge, /error="invalid_token"/, where);
        walked.push(`${method.toUpperCase()} ${path}`);
      }
    }
    for (
      const prefix of [
        "POST /api/datasets/",
        "GET /api/tasks/",
        "PATCH /api/tasks/",
        "DELETE /api/tasks/",
        "POST /api/spatial-hitl/",
        "POST /api/correlations/",
        "POST /api/feature-importance/",
        "GET /dataset",
        "GET /model",
        "POST /annotations",
        "POST /run/",
        "POST /approve/",
        "GET /get-new-jobs/",
        "GET /jobs/",
      ]
    ) {
      assert.ok(walked.some((w) => w.startsWith(prefix)), `no secured operation under ${prefix}`);
    }
    assert.ok(walked.length >= 30, `only ${walked.length} operations walked`);
    // the operations without a token are the probes and the realm's own endpoints, nothing of the specs
    for (const op of open) assert.match(op, /^GET \/(healthz|readyz)$|^(GET|POST) \/realms\/\{realm\}\//, op);
  } finally {
    await t.close();
  }
});

Deno.test("logging: one JSON line per request with its id, at the level LOG_LEVEL lets through", async () => {
  const boom = newRouter();
  boom.get("/boom", () => {
    throw new Error("boom");
  });
  const lines = async (level: string, paths: string[]) => {
    const t = await testApp({ LOG_LEVEL: level }, { extraRoutes: [boom] });
    const ids: (string | null)[] = [];
    try {
      const out = await captureConsole(async () => {
        for (const p of paths) ids.push((await t.app.request(p)).headers.get("x-request-id"));
      });
      // the request lines only: the 500 also writes its stack on a line of its own
      return { ids, logged: out.map((l) => JSON.parse(l)).filter((l) => "method" in l) };
    } finally {
      await t.close();
    }
  };

  const info = await lines("info", ["/api/tasks/documents", "/nowhere", "/healthz"]);
  assert.equal(info.logged.length, 2, "healthz is a debug line");
  const [ok, missing] = info.logged;
  assert.equal(ok.method, "GET");
  assert.equal(ok.path, "/api/tasks/documents");
  assert.equal(ok.status, 200);
  assert.equal(ok.level, "info");
  assert.match(info.ids[0]!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(ok.request_id, info.ids[0]);
  assert.deepEqual([missing.path, missing.status, missing.level], ["/nowhere", 404, "warn"]);
  assert.equal(missing.request_id, info.ids[1]);
  assert.notEqual(info.ids[0], info.ids[1]);

  const debug = await lines("debug", ["/healthz", "/readyz"]);
  assert.deepEqual(debug.logged.map((l) => [l.path, l.level]), [["/healthz", "debug"], ["/readyz", "debug"]]);

  const warn = await lines("warn", ["/api/tasks/documents", "/nowhere"]);
  assert.deepEqual(warn.logged.map((l) => l.status), [404]);

  const error = await lines("error", ["/api/tasks/documents", "/nowhere", "/boom"]);
  assert.deepEqual(error.logged.map((l) => [l.status, l.level]), [[500, "error"]]);
  assert.equal(error.logged[0].request_id, error.ids[2]);

  assert.deepEqual((await lines("silent", ["/api/tasks/documents", "/nowhere"])).logged, []);
});

storeTest("readyz: 200 naming the store when the store answers", async (t) => {
  const res = await t.app.request("/readyz");
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: "ready", store: t.store.kind });
});

Deno.test("config: defaults, and a bad variable is named", () => {
  const c = loadConfig({});
  assert.equal(c.PORT, 8000);
  assert.equal(c.KV_PATH, "./data/tessera.kv");
  assert.equal(c.AUTH_MODE, "local");
  assert.equal(c.users.size, 0);
  assert.equal(loadConfig({}, { dev: true }).users.get("demo")?.password, "demo");
  assert.equal(c.publicUrl, "http://localhost:8000");
  assert.throws(() => loadConfig({ PORT: "x" }), /PORT/);
  assert.throws(() => loadConfig({ TESSERA_USERS: "nopass" }), /TESSERA_USERS/);
  assert.throws(() => loadConfig({ AUTH_MODE: "oidc" }), /OIDC_JWKS_URL/);
  assert.ok(c.BODY_LIMIT_MB * 1024 * 1024 >= 100e6);
});
