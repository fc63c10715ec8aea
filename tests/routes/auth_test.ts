/**
 * Authentication through the HTTP surface with AUTH_MODE=local: the Keycloak-compatible token endpoint,
 * JWKS and discovery; a protected route without a token or with a malformed header; the signing key
 * surviving a restart; AUTH_MODE=off. Every kind of bad token is tested in auth_bad_tokens_test.ts.
 */
import assert from "node:assert/strict";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import {
  assertInvalidToken,
  assertMissingToken,
  BASE_ENV,
  ISSUER,
  login,
  passwordForm,
  tokenRequest,
  whoami,
  withApp,
} from "./auth_fixtures.ts";
import { captureConsole } from "../support/app.ts";

Deno.test("password grant answers like Keycloak", async () => {
  await withApp(BASE_ENV, async (app) => {
    const res = await tokenRequest(app, passwordForm());
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const body = await res.json();
    assert.equal(body.token_type, "Bearer");
    assert.equal(body.expires_in, 300);
    assert.equal(body.refresh_expires_in, 1800);
    assert.equal(body.scope, "openid profile email");
    assert.equal(typeof body.refresh_token, "string");
    const header = decodeProtectedHeader(body.access_token);
    assert.equal(header.alg, "ES256");
    assert.equal(typeof header.kid, "string");
    const claims = decodeJwt(body.access_token);
    assert.equal(claims.iss, ISSUER);
    assert.equal(claims.aud, "tessera");
    assert.equal(claims.azp, "tessera");
    assert.equal(claims.typ, "Bearer");
    assert.equal(claims.preferred_username, "alice");
    assert.equal(claims.scope, "openid profile email");
    assert.match(String(claims.sub), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(claims.exp! - claims.iat!, 300);
    assert.equal(typeof claims.jti, "string");
    const again = decodeJwt((await login(app)).access_token as string);
    assert.equal(again.sub, claims.sub, "sub is stable per user");
    assert.notEqual(again.jti, claims.jti);
  });
});

Deno.test("a token from the password grant opens a protected route", async () => {
  await withApp(BASE_ENV, async (app) => {
    const { access_token } = await login(app);
    const res = await whoami(app, access_token as string);
    assert.equal(res.status, 200);
    const p = await res.json();
    assert.equal(p.username, "alice");
    assert.equal(p.clientId, "tessera");
  });
});

Deno.test("token endpoint errors are Keycloak's", async () => {
  await withApp(BASE_ENV, async (app) => {
    const cases: [Record<string, string>, number, string, string?][] = [
      [passwordForm({ password: "wrong" }), 401, "invalid_grant", "Invalid user credentials"],
      [passwordForm({ username: "mallory" }), 401, "invalid_grant", "Invalid user credentials"],
      [passwordForm({ password: "wonderland2" }), 401, "invalid_grant", "Invalid user credentials"],
      [passwordForm({ username: "bob" }), 401, "invalid_grant", "Invalid user credentials"],
      [passwordForm({ client_secret: "nope" }), 401, "invalid_client"],
      [passwordForm({ client_id: "nobody" }), 401, "invalid_client"],
      [passwordForm({ grant_type: "client_credentials" }), 400, "unsupported_grant_type"],
      [passwordForm({ grant_type: "authorization_code" }), 400, "unsupported_grant_type"],
    ];
    for (const [form, status, error, description] of cases) {
      const res = await tokenRequest(app, form);
      assert.equal(res.status, status, JSON.stringify(form));
      const body = await res.json();
      assert.equal(body.error, error, JSON.stringify(form));
      if (description) assert.equal(body.error_description, description);
    }
  });
});

Deno.test("token endpoint: missing fields are invalid_request", async () => {
  await withApp(BASE_ENV, async (app) => {
    for (const drop of ["grant_type", "client_id", "client_secret", "username", "password"]) {
      const form: Record<string, string> = passwordForm();
      delete form[drop];
      const res = await tokenRequest(app, form);
      assert.equal(res.status, 400, drop);
      assert.equal((await res.json()).error, "invalid_request", drop);
    }
    const refresh = await tokenRequest(app, { ...passwordForm(), grant_type: "refresh_token" });
    assert.equal(refresh.status, 400);
    assert.equal((await refresh.json()).error, "invalid_request");
  });
});

Deno.test("token endpoint accepts client credentials as HTTP Basic", async () => {
  await withApp(BASE_ENV, async (app) => {
    const form = { grant_type: "password", username: "alice", password: "wonderland" };
    const ok = await tokenRequest(app, form, { authorization: `Basic ${btoa("tessera:tessera-secret")}` });
    assert.equal(ok.status, 200);
    const bad = await tokenRequest(app, form, { authorization: `Basic ${btoa("tessera:wrong")}` });
    assert.equal(bad.status, 401);
    assert.equal((await bad.json()).error, "invalid_client");
  });
});

Deno.test("refresh_token grant renews the session and checks the client", async () => {
  await withApp(BASE_ENV, async (app) => {
    const first = await login(app);
    const refresh = { grant_type: "refresh_token", client_id: "tessera", client_secret: "tessera-secret" };
    const res = await tokenRequest(app, { ...refresh, refresh_token: first.refresh_token as string });
    assert.equal(res.status, 200);
    const second = await res.json();
    assert.equal(second.session_state, first.session_state);
    assert.notEqual(second.access_token, first.access_token);
    assert.equal((await whoami(app, second.access_token)).status, 200);

    const otherClient = await tokenRequest(app, {
      grant_type: "refresh_token",
      client_id: "other",
      client_secret: "other-secret",
      refresh_token: first.refresh_token as string,
    });
    assert.equal(otherClient.status, 400);
    assert.equal((await otherClient.json()).error, "invalid_grant");

    const accessAsRefresh = await tokenRequest(app, {
      ...refresh,
      refresh_token: first.access_token as string,
    });
    assert.equal(accessAsRefresh.status, 400);
    assert.deepEqual(await accessAsRefresh.json(), {
      error: "invalid_grant",
      error_description: "Invalid refresh token",
    });

    await assertInvalidToken(await whoami(app, first.refresh_token as string));
  });
});

Deno.test("another realm does not exist", async () => {
  await withApp(BASE_ENV, async (app) => {
    for (
      const path of [
        "/realms/master/protocol/openid-connect/certs",
        "/realms/master/.well-known/openid-configuration",
      ]
    ) {
      const res = await app.request(path);
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { error: "Realm does not exist" });
    }
    const res = await app.request("/realms/master/protocol/openid-connect/token", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(passwordForm()),
    });
    assert.equal(res.status, 404);
  });
});

Deno.test("JWKS and discovery let a third party verify our tokens with jose alone", async () => {
  await withApp(BASE_ENV, async (app) => {
    const discovery = await (await app.request("/realms/tessera/.well-known/openid-configuration")).json();
    assert.equal(discovery.issuer, ISSUER);
    assert.equal(discovery.token_endpoint, `${ISSUER}/protocol/openid-connect/token`);
    assert.equal(discovery.jwks_uri, `${ISSUER}/protocol/openid-connect/certs`);
    assert.ok(discovery.grant_types_supported.includes("password"));

    const jwks = await (await app.request("/realms/tessera/protocol/openid-connect/certs")).json();
    assert.equal(jwks.keys.length, 1);
    for (const member of ["d", "p", "q", "dp", "dq", "qi"]) assert.equal(member in jwks.keys[0], false);
    const { access_token } = await login(app);
    const { payload } = await jwtVerify(access_token as string, createLocalJWKSet(jwks), {
      issuer: ISSUER,
      audience: "tessera",
      algorithms: ["ES256"],
    });
    assert.equal(payload.preferred_username, "alice");
  });
});

Deno.test("the realm endpoints are in /openapi.json", async () => {
  await withApp(BASE_ENV, async (app) => {
    const doc = await (await app.request("/openapi.json")).json();
    assert.ok(doc.paths["/realms/{realm}/protocol/openid-connect/token"].post);
    assert.ok(doc.paths["/realms/{realm}/protocol/openid-connect/certs"].get);
    assert.ok(doc.paths["/realms/{realm}/.well-known/openid-configuration"].get);
  });
});

Deno.test("protected route: missing or malformed Authorization is 401 with a Bearer challenge", async () => {
  await withApp(BASE_ENV, async (app) => {
    await assertMissingToken(await whoami(app));
    const basic = await app.request("/test/whoami", { headers: { authorization: "Basic YTpi" } });
    assert.equal(basic.status, 401);
    const challenge = basic.headers.get("www-authenticate") ?? "";
    assert.match(challenge, /^Bearer error="invalid_token"/);
    assert.match(challenge, /malformed authorization header/);
    await assertInvalidToken(await whoami(app, "not-a-jwt"));
  });
});

Deno.test("the signing key survives a restart", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/restart.kv`;
  let token = "";
  let kid = "";
  await withApp(BASE_ENV, async (app) => {
    token = (await login(app)).access_token as string;
    kid = (await (await app.request("/realms/tessera/protocol/openid-connect/certs")).json()).keys[0].kid;
  }, { kvPath });
  await withApp(BASE_ENV, async (app) => {
    assert.equal((await whoami(app, token)).status, 200);
    const jwks = await (await app.request("/realms/tessera/protocol/openid-connect/certs")).json();
    assert.equal(jwks.keys[0].kid, kid);
  }, { kvPath });
  await Deno.remove(dir, { recursive: true });
});

Deno.test("dev mode logs in demo:demo; non-dev without users warns that nobody can log in", async () => {
  const env = { ...BASE_ENV, TESSERA_USERS: "" };
  await withApp(env, async (app) => {
    const res = await tokenRequest(app, passwordForm({ username: "demo", password: "demo" }));
    assert.equal(res.status, 200);
  }, { dev: true });
  const warnings = await captureConsole(() =>
    withApp(env, async (app) => {
      const res = await tokenRequest(app, passwordForm({ username: "demo", password: "demo" }));
      assert.equal(res.status, 401);
    }), ["warn"]);
  assert.ok(warnings.some((w) => /nobody can log in/.test(w)), warnings.join("\n"));
});

Deno.test("AUTH_MODE=off lets requests through and warns at start", async () => {
  const warnings = await captureConsole(() =>
    withApp({ ...BASE_ENV, AUTH_MODE: "off" }, async (app) => {
      const res = await whoami(app);
      assert.equal(res.status, 200);
      assert.equal((await res.json()).sub, "anonymous");
      assert.equal(
        (await tokenRequest(app, passwordForm())).status,
        404,
        "no realm endpoints when auth is off",
      );
    }), ["warn"]);
  assert.ok(warnings.some((w) => /AUTH_MODE=off/.test(w)));
});
