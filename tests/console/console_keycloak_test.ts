/**
 * Console sign-in at a real Keycloak (AUTH_MODE=oidc), route by route through `app.request()`: the start's
 * redirect (PKCE S256, state, nonce), the callback's refusals (no flow, a wrong state, access_denied, a
 * refused code, a wrong nonce, a token endpoint that is away), and the whole code flow with Keycloak's own
 * login form driven by fetch: the session, its refresh, and the sign-out at the provider.
 */
import assert from "node:assert/strict";
import { authTestApp, type TestApp } from "../support/app.ts";
import { allowConsoleAt, ISSUER, noKeycloak, oidcEnv } from "../support/keycloak.ts";

const ORIGIN = "http://127.0.0.1:8000";
const FLOWS = { db: "tessera", collection: "_console_sign_ins" };
const SESSIONS = { db: "tessera", collection: "_console_sessions" };

const withApp = async (env: Record<string, string>, fn: (t: TestApp) => Promise<void>) => {
  await allowConsoleAt(ORIGIN);
  const t = await authTestApp(oidcEnv({ PUBLIC_URL: ORIGIN, OIDC_PROVIDER_NAME: "Keycloak", ...env }));
  try {
    await fn(t);
  } finally {
    await t.close();
  }
};

/** `GET /console/auth/start`: the flow's cookie ("name=value") and the provider's authorization address. */
async function start(t: TestApp, query = "") {
  const res = await t.app.request(`/console/auth/start${query}`);
  assert.equal(res.status, 303);
  const setCookie = res.headers.get("set-cookie")!;
  return { cookie: setCookie.split(";")[0], setCookie, location: new URL(res.headers.get("location")!) };
}

/** A tiny cookie jar for Keycloak's own cookies between its login page and its answers. */
class Jar {
  #cookies = new Map<string, string>();
  take(res: Response) {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      this.#cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  }
  get header() {
    return [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/**
 * Signs in on Keycloak's login page (by fetch) and returns where Keycloak sends the browser back to (at
 * once when the jar holds a Keycloak session still).
 */
async function keycloakLogin(jar: Jar, authorize: URL, user: string): Promise<URL> {
  const page = await fetch(authorize, { headers: { cookie: jar.header }, redirect: "manual" });
  jar.take(page);
  if (page.status === 302) {
    await page.body?.cancel();
    return new URL(page.headers.get("location")!);
  }
  const html = await page.text();
  const action = html.match(/action="([^"]*login-actions\/authenticate[^"]*)"/)?.[1].replaceAll("&amp;", "&");
  assert.ok(action, "Keycloak's login form");
  const res = await fetch(action, {
    method: "POST",
    headers: { cookie: jar.header },
    body: new URLSearchParams({ username: user, password: user, credentialId: "" }),
    redirect: "manual",
  });
  jar.take(res);
  await res.body?.cancel();
  assert.equal(res.status, 302);
  return new URL(res.headers.get("location")!);
}

const callback = (t: TestApp, back: URL, cookie?: string) =>
  t.app.request(`/console/auth/callback${back.search}`, { headers: cookie ? { cookie } : {} });

Deno.test({
  name: "console oidc: the sign-in page takes no password; start sends the browser to Keycloak with PKCE",
  ignore: noKeycloak,
  fn: () =>
    withApp({}, async (t) => {
      const page = await t.app.request("/console/sign-in?next=%2Fconsole%2Fdatasets");
      const html = await page.text();
      assert.doesNotMatch(html, /type="password"|name="password"/);
      assert.match(html, /href="\/console\/auth\/start\?next=%2Fconsole%2Fdatasets">Sign in with Keycloak</);

      const posted = await t.app.request("/console/sign-in", {
        method: "POST",
        headers: { origin: ORIGIN },
        body: new URLSearchParams({ username: "reviewer", password: "reviewer" }),
      });
      assert.equal(posted.status, 405);
      assert.equal(posted.headers.get("set-cookie"), null);

      const { setCookie, location } = await start(t, "?next=%2Fconsole%2Fdatasets");
      assert.match(
        setCookie,
        /^tessera_sign_in=[\w-]{43}; Max-Age=600; Path=\/console\/auth; HttpOnly; SameSite=Lax$/,
      );
      assert.equal(location.origin + location.pathname, `${ISSUER}/protocol/openid-connect/auth`);
      const q = Object.fromEntries(location.searchParams);
      assert.equal(q.response_type, "code");
      assert.equal(q.client_id, "tessera");
      assert.equal(q.redirect_uri, `${ORIGIN}/console/auth/callback`);
      assert.equal(q.scope, "openid");
      assert.equal(q.code_challenge_method, "S256");
      assert.match(q.code_challenge, /^[\w-]{43}$/);
      assert.match(q.state, /^[\w-]{43}$/);
      assert.match(q.nonce, /^[\w-]{43}$/);
      const [flow] = await t.store.list(FLOWS);
      assert.equal(flow.state, q.state);
      assert.equal(flow.next, "/console/datasets");
      assert.notEqual(flow.code_verifier, q.code_challenge, "the verifier stays on the server");

      // Keycloak shows its own login page for it
      const login = await fetch(location);
      assert.equal(login.status, 200);
      assert.match(await login.text(), /id="kc-login"/);
    }),
});

Deno.test({
  name: "console oidc: a callback without its flow, with a wrong state, or declined ends on the sign-in page",
  ignore: noKeycloak,
  fn: () =>
    withApp({}, async (t) => {
      const none = await t.app.request("/console/auth/callback?code=x&state=y");
      assert.equal(none.status, 400);
      assert.match(await none.text(), /not started in this browser/);

      const wrong = await start(t);
      const bad = await callback(t, new URL(`${ORIGIN}/?code=x&state=not-the-state`), wrong.cookie);
      assert.equal(bad.status, 400);
      const badHtml = await bad.text();
      assert.match(badHtml, /does not belong to the sign-in started here/);
      assert.match(badHtml, /Sign in with Keycloak/);
      assert.doesNotMatch(bad.headers.get("set-cookie") ?? "", /tessera_session=[^;]/);
      // the flow was used up: the same cookie with the right state is no longer a sign-in
      const state = wrong.location.searchParams.get("state");
      const again = await callback(t, new URL(`${ORIGIN}/?code=x&state=${state}`), wrong.cookie);
      assert.equal(again.status, 400);

      const declined = await start(t, "?next=%2Fconsole%2Fcleaning");
      const s = declined.location.searchParams.get("state");
      const res = await callback(
        t,
        new URL(`${ORIGIN}/?error=access_denied&state=${s}&iss=${encodeURIComponent(ISSUER)}`),
        declined.cookie,
      );
      assert.equal(res.status, 403);
      const html = await res.text();
      assert.match(html, /cancelled or refused at the identity provider/);
      assert.match(
        html,
        /next=%2Fconsole%2Fcleaning/,
        "signing in again still leads where the person was going",
      );
    }),
});

Deno.test({
  name: "console oidc: the code flow signs in at Keycloak, refreshes, and signs out there too",
  ignore: noKeycloak,
  fn: () =>
    withApp({}, async (t) => {
      const jar = new Jar();
      const { cookie, location } = await start(t, "?next=%2Fconsole%2Fdatasets&pending=kept-form");
      const back = await keycloakLogin(jar, location, "reviewer");
      assert.equal(back.origin + back.pathname, `${ORIGIN}/console/auth/callback`);
      assert.equal(back.searchParams.get("state"), location.searchParams.get("state"));

      const res = await callback(t, back, cookie);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("refresh"), "0;url=/console/datasets?pending=kept-form");
      const session = res.headers.getSetCookie().find((c) => c.startsWith("tessera_session="))!.split(";")[0];
      assert.equal((await t.store.list(FLOWS)).length, 0, "the flow was taken");
      const [doc] = await t.store.list(SESSIONS);
      assert.equal(doc.username, "reviewer");
      assert.match(String(doc.id_token), /^ey/);

      const tasks = await t.app.request("/console/tasks", { headers: { cookie: session } });
      assert.equal(tasks.status, 200);
      const html = await tasks.text();
      assert.match(html, /reviewer/);

      // the access token has run out: the provider's refresh grant renews the session
      await t.store.patch(SESSIONS, doc._id, { expires_at: Date.now() });
      const later = await t.app.request("/console/datasets", { headers: { cookie: session } });
      assert.equal(later.status, 200);
      const renewed = await t.store.get(SESSIONS, doc._id);
      assert.ok(Number(renewed?.expires_at) > Date.now() + 5_000, "a new access token");
      assert.notEqual(renewed?.refresh_token, doc.refresh_token);

      // sign-out: the session ends here, then at Keycloak, which sends the person back to the sign-in page
      const csrf = html.match(/name="_csrf" value="([^"]+)"/)![1];
      const out = await t.app.request("/console/sign-out", {
        method: "POST",
        headers: { cookie: session, origin: ORIGIN },
        body: new URLSearchParams({ _csrf: csrf }),
      });
      assert.equal(out.status, 200);
      assert.equal((await t.store.list(SESSIONS)).length, 0);
      const to = new URL(out.headers.get("refresh")!.replace(/^0;url=/, ""));
      assert.equal(to.origin + to.pathname, `${ISSUER}/protocol/openid-connect/logout`);
      assert.equal(to.searchParams.get("id_token_hint"), renewed?.id_token);
      assert.equal(to.searchParams.get("client_id"), "tessera");
      assert.equal(to.searchParams.get("post_logout_redirect_uri"), `${ORIGIN}/console/sign-in`);
      const logout = await fetch(to, { headers: { cookie: jar.header }, redirect: "manual" });
      await logout.body?.cancel();
      assert.equal(logout.status, 302);
      const home = new URL(logout.headers.get("location")!);
      assert.equal(home.href, `${ORIGIN}/console/sign-in?state=signed_out`);
      const signedOut = await t.app.request(home.pathname + home.search);
      assert.match(await signedOut.text(), /You have signed out/);
      // Keycloak's session is gone: its authorization endpoint asks for the password again
      const next = await start(t);
      const login = await fetch(next.location, { headers: { cookie: jar.header }, redirect: "manual" });
      assert.equal(login.status, 200);
      assert.match(await login.text(), /id="kc-login"/);
    }),
});

Deno.test({
  name: "console oidc: a refused code, a wrong nonce and an unreachable token endpoint are 400, 400 and 503",
  ignore: noKeycloak,
  fn: async () => {
    await withApp({}, async (t) => {
      const jar = new Jar();
      const first = await start(t);
      const back = await keycloakLogin(jar, first.location, "viewer");
      back.searchParams.set("code", "not-a-code");
      const refused = await callback(t, back, first.cookie);
      assert.equal(refused.status, 400);
      assert.match(await refused.text(), /did not complete the sign-in: sign in again/);

      const second = await start(t);
      const [flow] = await t.store.list(FLOWS);
      await t.store.patch(FLOWS, flow._id, { nonce: "another-nonce" });
      const wrongNonce = await callback(
        t,
        await keycloakLogin(jar, second.location, "viewer"),
        second.cookie,
      );
      assert.equal(wrongNonce.status, 400);
      assert.match(await wrongNonce.text(), /nonce/);
      assert.equal((await t.store.list(SESSIONS)).length, 0);
    });
    await withApp({ OIDC_TOKEN_URL: "http://127.0.0.1:9/token" }, async (t) => {
      const { cookie, location } = await start(t);
      const res = await callback(t, await keycloakLogin(new Jar(), location, "viewer"), cookie);
      assert.equal(res.status, 503);
      assert.match(await res.text(), /cannot be reached/);
    });
  },
});
