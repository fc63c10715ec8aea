/**
 * CORS_ORIGINS: the JSON API answers a listed origin's preflight and puts the CORS headers on its answers
 * (errors too); an origin not listed, and every console route, get none; a bad value stops the start.
 */
import assert from "node:assert/strict";
import { loadConfig } from "../../config.ts";
import { type App, BASE_ENV, login, whoami, withApp } from "./auth_fixtures.ts";

const LISTED = "http://localhost:5173";
const OTHER = "https://dashboard.example.org";
const UNLISTED = "http://evil.test:5173";
const ENV = { ...BASE_ENV, CORS_ORIGINS: `${LISTED}, ${OTHER}` };

/** The CORS preflight a browser sends before a GET with a bearer token. */
const preflight = (app: App, path: string, origin: string) =>
  app.request(path, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "GET",
      "access-control-request-headers": "authorization",
    },
  });

/** Every `Access-Control-*` header of an answer. */
const corsHeaders = (res: Response) => [...res.headers].filter(([k]) => k.startsWith("access-control-"));

/** An answer carries the headers that let a page of `origin` read it. */
function assertReadableBy(res: Response, origin: string, what: string) {
  assert.equal(res.headers.get("access-control-allow-origin"), origin, what);
  assert.match(res.headers.get("vary") ?? "", /\bOrigin\b/, `${what}: Vary`);
  const exposed = res.headers.get("access-control-expose-headers") ?? "";
  for (const h of ["Content-Disposition", "X-Request-Id"]) assert.match(exposed, new RegExp(h), what);
  assert.equal(res.headers.get("access-control-allow-credentials"), null, `${what}: no credentials`);
}

Deno.test("CORS: a listed origin's preflight is a 204 naming the origin, methods and headers", async () => {
  await withApp(ENV, async (app) => {
    for (const origin of [LISTED, OTHER]) {
      const res = await preflight(app, "/test/whoami", origin);
      assert.equal(res.status, 204, "no token asked of a preflight, and no 405");
      assert.equal(res.headers.get("access-control-allow-origin"), origin);
      assert.match(res.headers.get("vary") ?? "", /\bOrigin\b/);
      const methods = (res.headers.get("access-control-allow-methods") ?? "").split(",");
      assert.deepEqual(methods, ["GET", "POST", "PUT", "PATCH", "DELETE"]);
      const headers = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(",");
      assert.ok(headers.includes("authorization") && headers.includes("content-type"), headers.join());
      assert.ok(Number(res.headers.get("access-control-max-age")) > 0);
    }
    // a route that only takes POST, and a route with path parameters
    const post = await app.request("/api/datasets/db/loans", {
      method: "OPTIONS",
      headers: { origin: LISTED, "access-control-request-method": "POST" },
    });
    assert.equal(post.status, 204);
    assert.equal(post.headers.get("access-control-allow-origin"), LISTED);
  });
});

Deno.test("CORS: a listed origin reads the API's answers, its errors included", async () => {
  await withApp(ENV, async (app) => {
    const token = (await login(app)).access_token as string;
    const withOrigin = (init: RequestInit = {}) => ({
      ...init,
      headers: { origin: LISTED, ...init.headers as Record<string, string> },
    });

    const ok = await app.request(
      "/test/whoami",
      withOrigin({ headers: { authorization: `Bearer ${token}` } }),
    );
    assert.equal(ok.status, 200);
    assertReadableBy(ok, LISTED, "200");
    assert.ok(ok.headers.get("x-request-id"));

    const noToken = await app.request("/test/whoami", withOrigin());
    assert.equal(noToken.status, 401);
    assertReadableBy(noToken, LISTED, "401");
    assert.match(noToken.headers.get("access-control-expose-headers") ?? "", /WWW-Authenticate/);

    const badQuery = await app.request(
      "/api/datasets/db/loans?mode=bogus",
      withOrigin({
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: "[]",
      }),
    );
    assert.equal(badQuery.status, 422);
    assertReadableBy(badQuery, LISTED, "422");

    const missing = await app.request("/api/no-such-route", withOrigin());
    assert.equal(missing.status, 404);
    assertReadableBy(missing, LISTED, "404");

    const health = await app.request("/healthz", withOrigin());
    assert.equal(health.status, 200);
    assertReadableBy(health, LISTED, "/healthz");

    // a plain OPTIONS (no preflight) keeps the app's 204 + Allow, readable by the page
    const options = await app.request("/test/whoami", withOrigin({ method: "OPTIONS" }));
    assert.equal(options.status, 204);
    assert.match(options.headers.get("allow") ?? "", /GET/);
    assertReadableBy(options, LISTED, "OPTIONS");
  });
});

Deno.test("CORS: an origin not listed, or none, gets no CORS header", async () => {
  await withApp(ENV, async (app) => {
    const token = (await login(app)).access_token as string;
    const pre = await preflight(app, "/test/whoami", UNLISTED);
    assert.deepEqual(corsHeaders(pre), [], "its preflight allows nothing");
    assert.notEqual(pre.status, 401);

    for (const origin of [UNLISTED, `${LISTED}/`, "http://localhost:5174", "null"]) {
      const res = await app.request("/test/whoami", {
        headers: { origin, authorization: `Bearer ${token}` },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(corsHeaders(res), [], origin);
      assert.match(res.headers.get("vary") ?? "", /\bOrigin\b/, "the answer depends on Origin");
    }
    const sameOrigin = await whoami(app, token);
    assert.deepEqual(corsHeaders(sameOrigin), []);
  });
});

Deno.test("CORS: the console's routes never get CORS headers, a listed origin or not", async () => {
  await withApp(ENV, async (app) => {
    for (const path of ["/", "/console", "/console/", "/console/sign-in", "/console/no-such-page"]) {
      const get = await app.request(path, { headers: { origin: LISTED } });
      assert.deepEqual(corsHeaders(get), [], `GET ${path}`);
      const pre = await preflight(app, path, LISTED);
      assert.deepEqual(corsHeaders(pre), [], `preflight ${path}`);
    }
    const post = await app.request("/console/sign-in", {
      method: "POST",
      headers: { origin: LISTED, "content-type": "application/x-www-form-urlencoded" },
      body: "username=alice&password=wonderland",
    });
    assert.deepEqual(corsHeaders(post), [], "POST /console/sign-in");
  });
});

Deno.test("CORS: with CORS_ORIGINS unset no answer carries a CORS header", async () => {
  await withApp(BASE_ENV, async (app) => {
    const token = (await login(app)).access_token as string;
    const res = await app.request("/test/whoami", {
      headers: { origin: LISTED, authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(corsHeaders(res), []);
    assert.deepEqual(corsHeaders(await preflight(app, "/test/whoami", LISTED)), []);
  });
});

Deno.test("CORS_ORIGINS: each entry must be an exact origin; a bad one is refused naming the variable", () => {
  assert.deepEqual(loadConfig({ CORS_ORIGINS: ` ${LISTED} ,${OTHER},` }).CORS_ORIGINS, [LISTED, OTHER]);
  assert.deepEqual(loadConfig({}).CORS_ORIGINS, []);
  const refused: [string, RegExp][] = [
    ["*", /wildcard/],
    [`${LISTED}, *`, /wildcard/],
    ["https://*.example.org", /wildcard/],
    [`${LISTED}/`, /no path \(did you mean 'http:\/\/localhost:5173'\?\)/],
    ["http://localhost:5173/app", /no path/],
    ["HTTP://LOCALHOST:5173", /did you mean 'http:\/\/localhost:5173'/],
    ["https://example.org:443", /did you mean 'https:\/\/example\.org'/],
    ["localhost:5173", /not an http\(s\) origin/],
    ["ftp://files.example.org", /not an http\(s\) origin/],
    ["not an origin", /scheme:\/\/host\[:port\]/],
  ];
  for (const [value, why] of refused) {
    assert.throws(() => loadConfig({ CORS_ORIGINS: value }), (e: Error) => {
      assert.match(e.message, /^invalid configuration: CORS_ORIGINS: '/, value);
      assert.match(e.message, why, value);
      return true;
    });
  }
});
