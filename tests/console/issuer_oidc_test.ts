/**
 * The console's provider client in AUTH_MODE=oidc (services/console/provider.ts), against a provider over
 * HTTP with no Keycloak needed: another Tessera in local mode, served on loopback, is the OpenID provider
 * (discovery, refresh grant, JWKS). No password is taken in oidc mode; the refresh grant goes through
 * oauth4webapi; a refused refresh token, a refused client and an unreachable token endpoint say so.
 */
import assert from "node:assert/strict";
import { serveApp } from "../support/browser.ts";
import { loadConfig } from "../../config.ts";
import { KvStore } from "../../store/kv.ts";
import { OidcVerifier } from "../../core/auth/oidc.ts";
import { createSession, findSession, type SessionDeps, signIn } from "../../services/console/sessions.ts";
import { SignInError } from "../../services/console/issuer.ts";
import { providerRefresh } from "../../services/console/provider.ts";

const isSignInError = (reason: SignInError["reason"], message?: RegExp) => (e: unknown) =>
  e instanceof SignInError && e.reason === reason && (!message || message.test(e.message));

Deno.test("console in oidc mode: no password grant; the provider's refresh grant through oauth4webapi", async () => {
  const provider = await serveApp({ TESSERA_USERS: "alice:wonderland", TESSERA_CLIENTS: "console:s3cret" });
  const dir = await Deno.makeTempDir({ prefix: "tessera-oidc-" });
  const store = await KvStore.open(`${dir}/t.kv`);
  try {
    const issuer = `${provider.url}/realms/tessera`;
    const env = {
      LOG_LEVEL: "silent",
      AUTH_MODE: "oidc",
      OIDC_ISSUER: issuer,
      OIDC_JWKS_URL: `${issuer}/protocol/openid-connect/certs`,
      OIDC_AUDIENCE: "tessera",
      CONSOLE_CLIENT_ID: "console",
      CONSOLE_CLIENT_SECRET: "s3cret",
    };
    const config = loadConfig(env);
    const verifier = new OidcVerifier({ jwksUrl: config.OIDC_JWKS_URL!, issuer, audience: "tessera" });
    const clock = { now: Date.now() };
    const deps: SessionDeps = { store, config, verifier, now: () => clock.now };
    let asked = 0;
    const counting: SessionDeps = { ...deps, fetch: (...a) => (asked++, fetch(...a)) };

    await assert.rejects(
      signIn(counting, { username: "alice", password: "wonderland" }),
      isSignInError("unavailable", /takes no password/),
    );
    assert.equal(asked, 0, "the password went nowhere");

    // the provider's tokens, as the code flow would get them (here from its password grant)
    const grant = await fetch(`${issuer}/protocol/openid-connect/token`, {
      method: "POST",
      body: new URLSearchParams({
        grant_type: "password",
        client_id: "console",
        client_secret: "s3cret",
        username: "alice",
        password: "wonderland",
      }),
    }).then((r) => r.json());
    const start = clock.now;
    const { secret, session } = await createSession(deps, {
      accessToken: grant.access_token,
      expiresIn: grant.expires_in,
      refreshToken: grant.refresh_token,
      refreshExpiresIn: grant.refresh_expires_in,
      idToken: "an-id-token",
    });
    assert.equal(session.username, "alice", "the verified token's preferred_username");
    assert.equal(session.expiresAt, start + 300_000, "the provider's expires_in");

    clock.now = start + 299_000; // inside the refresh margin: the provider's refresh grant
    const refreshed = await findSession(counting, secret);
    assert.equal(refreshed.state, "active");
    assert.equal(refreshed.state === "active" && refreshed.session.expiresAt, clock.now + 300_000);
    assert.ok(asked > 0, "the provider was asked");
    const doc = await store.get({ db: config.TESSERA_DB, collection: "_console_sessions" }, session.id);
    assert.equal(doc?.id_token, "an-id-token", "no new ID token on refresh: the sign-in's stays the hint");

    await assert.rejects(providerRefresh(deps, "not-a-refresh-token"), isSignInError("refused"));
    // a client the provider does not know: not the person's fault
    const badClient = { ...deps, config: loadConfig({ ...env, CONSOLE_CLIENT_SECRET: "nope" }) };
    await assert.rejects(
      providerRefresh(badClient, grant.refresh_token),
      isSignInError("unavailable", /invalid_client/),
    );
    // an explicit token endpoint nobody answers at
    const gone = { ...deps, config: loadConfig({ ...env, OIDC_TOKEN_URL: "http://127.0.0.1:9/token" }) };
    await assert.rejects(
      providerRefresh(gone, grant.refresh_token),
      isSignInError("unavailable", /cannot be reached/),
    );
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
    await provider.close();
  }
});
