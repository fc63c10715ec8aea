/**
 * The console's sign-in with AUTH_MODE=oidc, against a real provider over HTTP: another Tessera in local
 * mode, served on loopback, is the OpenID provider (discovery, password and refresh grants, JWKS), and
 * the console's tokens are checked by the same OidcVerifier the JSON API uses.
 */
import assert from "node:assert/strict";
import { serveApp } from "../support/browser.ts";
import { loadConfig } from "../../config.ts";
import { KvStore } from "../../store/kv.ts";
import { OidcVerifier } from "../../core/auth/oidc.ts";
import { findSession, type SessionDeps, signIn } from "../../services/console/sessions.ts";
import { SignInError } from "../../services/console/issuer.ts";

Deno.test("console sign-in in oidc mode: discovery, password grant, refresh, refusals", async () => {
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

    await assert.rejects(
      signIn(deps, { username: "alice", password: "wrong" }),
      (e) => e instanceof SignInError && e.reason === "refused",
    );
    const start = clock.now;
    const { secret, session } = await signIn(deps, { username: "alice", password: "wonderland" });
    assert.equal(session.username, "alice");
    assert.equal(session.expiresAt, start + 300_000, "the provider's expires_in");

    clock.now = start + 299_000; // inside the refresh margin: the provider's refresh grant
    const refreshed = await findSession(deps, secret);
    assert.equal(refreshed.state, "active");
    assert.equal(refreshed.state === "active" && refreshed.session.expiresAt, clock.now + 300_000);

    // a client the provider does not know: the provider cannot be used, which is not the person's fault
    const badClient: SessionDeps = { ...deps, config: loadConfig({ ...env, CONSOLE_CLIENT_SECRET: "nope" }) };
    await assert.rejects(
      signIn(badClient, { username: "alice", password: "wonderland" }),
      (e) => e instanceof SignInError && e.reason === "unavailable" && /invalid_client/.test(e.message),
    );
    // an explicit token endpoint nobody answers at
    const gone: SessionDeps = {
      ...deps,
      config: loadConfig({ ...env, OIDC_TOKEN_URL: "http://127.0.0.1:9/token" }),
    };
    await assert.rejects(
      signIn(gone, { username: "alice", password: "wonderland" }),
      (e) => e instanceof SignInError && e.reason === "unavailable" && /cannot be reached/.test(e.message),
    );
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
    await provider.close();
  }
});
