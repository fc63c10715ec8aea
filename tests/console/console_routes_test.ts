/**
 * The console's HTTP rules without a browser (app.request): where `/` leads, what a page sends along
 * (headers, cookie), that the pages stay out of /openapi.json, that the console takes only its cookie
 * and the JSON API only bearer tokens, the Origin and CSRF refusals, and safe redirects after sign-in.
 */
import assert from "node:assert/strict";
import { authTestApp, type TestApp, testApp } from "../support/app.ts";
import { findDataset } from "../../services/datasets/registry.ts";
import { createTaskDocument, getTaskDocument } from "../../services/tasks/task_documents.ts";
import { hashId } from "../../services/console/sessions.ts";

const ORIGIN = "http://localhost:8000"; // PUBLIC_URL of a test app

/** Signs alice in through the form; the cookie header to send, and her CSRF token. */
async function signIn(t: TestApp, username = "alice", password = "wonderland") {
  const res = await t.app.request("/console/sign-in", {
    method: "POST",
    headers: { origin: ORIGIN },
    body: new URLSearchParams({ username, password }),
  });
  assert.equal(res.status, 303);
  const cookie = res.headers.get("set-cookie")!.split(";")[0];
  const page = await (await t.app.request("/console/tasks", { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1];
  return { cookie, csrf };
}

const form = (fields: Record<string, string>, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { origin: ORIGIN, ...headers },
  body: new URLSearchParams(fields),
});

Deno.test("console: / leads to the console, the console to sign-in or the tasks", async () => {
  const t = await authTestApp();
  try {
    const root = await t.app.request("/");
    assert.equal(root.status, 303);
    assert.equal(root.headers.get("location"), "/console/");
    const home = await t.app.request("/console/");
    assert.equal(home.headers.get("location"), "/console/sign-in");
    const { cookie } = await signIn(t);
    const signedIn = await t.app.request("/console/", { headers: { cookie } });
    assert.equal(signedIn.headers.get("location"), "/console/tasks");
    const page = await t.app.request("/console/tasks?status=done", { redirect: "manual" });
    assert.equal(page.headers.get("location"), "/console/sign-in?next=%2Fconsole%2Ftasks%3Fstatus%3Ddone");
  } finally {
    await t.close();
  }
});

Deno.test("console: pages are HTML with a strict policy, assets are served, nothing is in /openapi.json", async () => {
  const t = await authTestApp();
  try {
    const res = await t.app.request("/console/sign-in");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type")!, /^text\/html/);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.match(
      res.headers.get("content-security-policy")!,
      /default-src 'self'.*script-src 'self'.*frame-ancestors 'none'/,
    );
    assert.equal(res.headers.get("x-frame-options"), "DENY");
    const html = await res.text();
    assert.match(html, /^<!doctype html><html lang="en">/);
    for (const [, href] of html.matchAll(/(?:href|src)="(\/console\/assets\/[^"]+)"/g)) {
      const asset = await t.app.request(href.replaceAll("&amp;", "&"));
      assert.equal(asset.status, 200, href);
      assert.match(asset.headers.get("cache-control")!, /immutable/, href);
      await asset.body?.cancel();
    }
    assert.equal(
      (await t.app.request("/console/assets/console.css")).headers.get("cache-control"),
      "no-cache",
    );
    assert.equal((await t.app.request("/console/assets/secrets.txt")).status, 404);
    const spec = await (await t.app.request("/openapi.json")).json();
    assert.deepEqual(Object.keys(spec.paths).filter((p) => p === "/" || p.startsWith("/console")), []);
  } finally {
    await t.close();
  }
});

Deno.test("console: only its cookie opens a page; the cookie opens no JSON route", async () => {
  const t = await authTestApp();
  try {
    await createTaskDocument(t, { database_name: "demo", data_collection_name: "loans", status: "pending" });
    const { cookie } = await signIn(t);
    // a bearer token is the JSON API's; the console does not take it
    const token = await t.app.request(`/realms/tessera/protocol/openid-connect/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "password",
        client_id: "tessera",
        client_secret: "tessera-secret",
        username: "alice",
        password: "wonderland",
      }),
    });
    const { access_token } = await token.json();
    const bearer = await t.app.request("/console/tasks", {
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.equal(bearer.status, 303);
    assert.equal(bearer.headers.get("location"), "/console/sign-in");
    for (
      const [method, path] of [
        ["GET", "/api/tasks/documents"],
        ["GET", "/api/tasks/document/loans"],
        ["PATCH", "/api/tasks/document/loans"],
        ["GET", "/api/spatial-hitl/task/loans/dataset-columns"],
        ["GET", "/dataset"],
        ["GET", "/get-new-jobs/"],
      ]
    ) {
      const res = await t.app.request(path, {
        method,
        headers: { cookie, origin: ORIGIN, "content-type": "application/json" },
        body: method === "PATCH" ? JSON.stringify({ status: "done" }) : undefined,
      });
      assert.equal(res.status, 401, `${method} ${path}`);
      await res.body?.cancel();
    }
    assert.equal((await getTaskDocument(t, "loans")).status, "pending");
  } finally {
    await t.close();
  }
});

Deno.test("console: state changes need the console's origin and the session's token", async () => {
  const t = await authTestApp();
  try {
    await createTaskDocument(t, { database_name: "demo", data_collection_name: "loans", status: "pending" });
    const { cookie, csrf } = await signIn(t);
    const done = (init: RequestInit) => t.app.request("/console/tasks/loans/done", init);
    const refusals: [string, RequestInit][] = [
      ["no token", form({}, { cookie })],
      ["a wrong token", form({ _csrf: csrf.replace(/^./, (c) => (c === "A" ? "B" : "A")) }, { cookie })],
      ["a foreign Origin", form({ _csrf: csrf }, { cookie, origin: "http://evil.example" })],
      ["Origin null", form({ _csrf: csrf }, { cookie, origin: "null" })],
      ["no Origin, a foreign Referer", {
        ...form({ _csrf: csrf }, { cookie }),
        headers: { cookie, referer: "http://evil.example/x" },
      }],
      ["a JSON body", {
        method: "POST",
        headers: { cookie, origin: ORIGIN, "content-type": "application/json" },
        body: JSON.stringify({ _csrf: csrf }),
      }],
    ];
    for (const [what, init] of refusals) {
      const res = await done(init);
      assert.equal(res.status, 403, what);
      assert.match(await res.text(), /Nothing was changed/, what);
    }
    // a multipart body to a route that reads url-encoded forms: refused, not parsed
    const multi = new FormData();
    multi.append("_csrf", csrf);
    const res = await done({ method: "POST", headers: { cookie, origin: ORIGIN }, body: multi });
    assert.equal(res.status, 403);
    assert.equal((await getTaskDocument(t, "loans")).status, "pending");
    // no Origin and no Referer (not a browser's cross-site form): the token decides
    const ok = await done({
      method: "POST",
      headers: { cookie },
      body: new URLSearchParams({ _csrf: csrf }),
    });
    assert.equal(ok.status, 303);
    assert.equal((await getTaskDocument(t, "loans")).status, "done");
  } finally {
    await t.close();
  }
});

Deno.test("console: the upload checks the token before it reads the file", async () => {
  const t = await authTestApp();
  try {
    const { cookie, csrf } = await signIn(t);
    const upload = (parts: [string, string | File][]) => {
      const body = new FormData();
      for (const [k, v] of parts) body.append(k, v);
      return t.app.request("/console/datasets", {
        method: "POST",
        headers: { cookie, origin: ORIGIN },
        body,
      });
    };
    const file = new File(["a,b\n1,2\n"], "late.csv", { type: "text/csv" });
    // the token after the file is too late: refused, nothing imported
    const late = await upload([["database", "uploads"], ["file", file], ["_csrf", csrf]]);
    assert.equal(late.status, 403);
    assert.equal(await findDataset(t.store, t.config.TESSERA_DB, "late"), null);
    const ok = await upload([["_csrf", csrf], ["database", "uploads"], ["name", ""], ["file", file]]);
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/console/datasets/late?imported=1");
    assert.equal((await findDataset(t.store, t.config.TESSERA_DB, "late"))?.rows, 1);
  } finally {
    await t.close();
  }
});

Deno.test("console: an upload arriving in many small pieces is imported whole", async () => {
  const t = await authTestApp();
  try {
    const { cookie, csrf } = await signIn(t);
    const n = 20_000;
    const csv = "id,value\n" + Array.from({ length: n }, (_, i) => `${i},${(i % 97) / 4}`).join("\n") + "\n";
    const boundary = "----console-test-boundary";
    const body = new TextEncoder().encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrf}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="database"\r\n\r\nuploads\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="many.csv"\r\n` +
        `Content-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`,
    );
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (at >= body.length) return c.close();
        c.enqueue(body.slice(at, at + 1000));
        at += 1000;
      },
    });
    const res = await t.app.request("/console/datasets", {
      method: "POST",
      headers: { cookie, origin: ORIGIN, "content-type": `multipart/form-data; boundary=${boundary}` },
      body: stream,
    });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `/console/datasets/many?imported=${n}`);
    const rec = await findDataset(t.store, t.config.TESSERA_DB, "many");
    assert.equal(rec?.rows, n);
    assert.deepEqual(rec?.columns, [{ name: "id", type: "integer" }, { name: "value", type: "number" }]);
  } finally {
    await t.close();
  }
});

Deno.test("console: sign-in goes back only to console paths, and refuses another site", async () => {
  const t = await authTestApp();
  try {
    for (
      const [next, to] of [
        ["/console/datasets?x=1", "/console/datasets?x=1"],
        ["//evil.example/console", "/console/tasks"],
        ["https://evil.example/console/tasks", "/console/tasks"],
        ["/consolex", "/console/tasks"],
        ["/console/\\evil", "/console/tasks"],
      ]
    ) {
      const res = await t.app.request(
        "/console/sign-in",
        form({ username: "alice", password: "wonderland", next }),
      );
      assert.equal(res.headers.get("location"), to, next);
    }
    const foreign = await t.app.request(
      "/console/sign-in",
      form({ username: "alice", password: "wonderland" }, { origin: "http://evil.example" }),
    );
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get("set-cookie"), null);
    const blank = await t.app.request("/console/sign-in", form({ username: " ", password: "x" }));
    assert.equal(blank.status, 422);
    assert.match(await blank.text(), /Enter your username/);
  } finally {
    await t.close();
  }
});

Deno.test("console: AUTH_MODE=off signs any name in; oidc takes no password, says when its provider is away", async () => {
  const off = await testApp();
  try {
    const { cookie } = await signIn(off, "anyone", "");
    const page = await off.app.request("/console/datasets", { headers: { cookie } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /anyone/);
  } finally {
    await off.close();
  }
  const oidc = await testApp({
    AUTH_MODE: "oidc",
    OIDC_JWKS_URL: "http://127.0.0.1:9/certs",
    OIDC_ISSUER: "http://127.0.0.1:9",
    OIDC_AUDIENCE: "tessera",
  });
  try {
    const res = await oidc.app.request("/console/sign-in", form({ username: "alice", password: "x" }));
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET");
    assert.equal(res.headers.get("set-cookie"), null);
    assert.match(await res.text(), /takes no password/);
    const page = await (await oidc.app.request("/console/sign-in")).text();
    assert.doesNotMatch(page, /type="password"/);
    assert.match(page, /href="\/console\/auth\/start\?next=%2Fconsole%2Ftasks">Sign in with single sign-on/);
    const start = await oidc.app.request("/console/auth/start");
    assert.equal(start.status, 503);
    assert.match(await start.text(), /discovery document .* could not be read/);
    // a session whose access token ran out while the provider is away: a 503 page, the session kept
    const secret = "a-cookie-secret";
    const sessions = { db: oidc.config.TESSERA_DB, collection: "_console_sessions" };
    await oidc.store.put(sessions, {
      _id: await hashId(secret),
      username: "alice",
      sub: "alice",
      csrf: "t",
      expires_at: 0,
      refresh_token: "r",
      refresh_expires_at: null,
      id_token: null,
      created_at: new Date().toISOString(),
    });
    const away = await oidc.app.request("/console/tasks", {
      headers: { cookie: `tessera_session=${secret}` },
    });
    assert.equal(away.status, 503);
    assert.match(await away.text(), /cannot be reached|could not be read/);
    assert.equal((await oidc.store.list(sessions)).length, 1);
  } finally {
    await oidc.close();
  }
});
