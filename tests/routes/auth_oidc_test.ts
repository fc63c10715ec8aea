/** Authentication with AUTH_MODE=oidc: tokens of an external provider, verified against a JWKS on 127.0.0.1. */
import assert from "node:assert/strict";
import { exportJWK, exportSPKI, generateKeyPair, importJWK, type JWK } from "jose";
import {
  assertInvalidToken,
  assertMissingToken,
  BASE_ENV,
  goodClaims,
  ISSUER,
  passwordForm,
  sign,
  tokenRequest,
  unsigned,
  whoami,
  withApp,
  withPayload,
} from "./auth_fixtures.ts";
import { captureConsole } from "../support/app.ts";

/** A JWKS on 127.0.0.1 holding one RS256 public key, as an external OpenID provider would serve it. */
async function withJwksServer(
  fn: (url: string, key: CryptoKey, kid: string, publicJwk: JWK) => Promise<void>,
) {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const kid = "idp-key-1";
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  const ac = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: ac.signal, onListen: () => {} },
    () => Response.json({ keys: [publicJwk] }),
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/certs`, privateKey, kid, publicJwk);
  } finally {
    ac.abort();
    await server.finished;
  }
}

Deno.test("AUTH_MODE=oidc verifies against a remote JWKS with issuer, audience and algorithm pinned", async () => {
  await withJwksServer(async (url, idpKey, kid, publicJwk) => {
    const idpIssuer = "https://idp.test/realms/acme";
    const env = {
      ...BASE_ENV,
      AUTH_MODE: "oidc",
      OIDC_JWKS_URL: url,
      OIDC_ISSUER: idpIssuer,
      OIDC_AUDIENCE: "tessera-api",
    };
    await withApp(env, async (app) => {
      const claims = {
        ...goodClaims(),
        iss: idpIssuer,
        aud: ["tessera-api", "account"],
        azp: "cleaner",
        resource_access: { "tessera-api": { roles: ["viewer"] } },
      };
      const hdr = { alg: "RS256", kid };
      const good = await whoami(app, await sign(claims, idpKey, hdr));
      assert.equal(good.status, 200);
      assert.equal((await good.json()).clientId, "cleaner");

      await assertMissingToken(await whoami(app));
      const tampered = withPayload(await sign(claims, idpKey, hdr), {
        ...claims,
        preferred_username: "root",
      });
      await assertInvalidToken(await whoami(app, tampered), /signature/);

      const now = Math.floor(Date.now() / 1000);
      await assertInvalidToken(
        await whoami(app, await sign({ ...claims, exp: now - 60 }, idpKey, hdr)),
        /expired/,
      );
      const wrongIss = await whoami(app, await sign({ ...claims, iss: ISSUER }, idpKey, hdr));
      await assertInvalidToken(wrongIss.clone(), /issuer/);
      assert.equal(
        (await wrongIss.json()).detail,
        `Invalid token: its issuer is "${ISSUER}", Tessera expects "${idpIssuer}" (OIDC_ISSUER)`,
      );
      // Keycloak's default: aud "account", the client only in azp
      const keycloakish = { ...claims, aud: "account", azp: "tessera-api" };
      const wrongAud = await whoami(app, await sign(keycloakish, idpKey, hdr));
      await assertInvalidToken(wrongAud.clone(), /its audience is account, Tessera expects tessera-api/);
      assert.equal(
        (await wrongAud.json()).detail,
        `Invalid token: its audience is "account", Tessera expects "tessera-api" (OIDC_AUDIENCE)`,
      );
      const several = await whoami(app, await sign({ ...claims, aud: ["account", "broker"] }, idpKey, hdr));
      assert.equal(
        (await several.json()).detail,
        `Invalid token: its audience is ["account","broker"], Tessera expects "tessera-api" (OIDC_AUDIENCE)`,
      );
      await assertInvalidToken(await whoami(app, await sign({ ...claims, typ: "Refresh" }, idpKey, hdr)));
      await assertInvalidToken(await whoami(app, unsigned(claims)), /algorithm/);
      const pem = await exportSPKI(await importJWK(publicJwk, "RS256", { extractable: true }) as CryptoKey);
      for (const secret of [pem, JSON.stringify(publicJwk)]) {
        const hs = await sign(claims, new TextEncoder().encode(secret), { alg: "HS256", kid });
        await assertInvalidToken(await whoami(app, hs), /algorithm/);
      }
      const stranger = await generateKeyPair("RS256");
      await assertInvalidToken(await whoami(app, await sign(claims, stranger.privateKey, hdr)), /signature/);
      await assertInvalidToken(
        await whoami(app, await sign(claims, stranger.privateKey, { alg: "RS256", kid: "other" })),
        /unknown signing key/,
      );
      assert.equal((await tokenRequest(app, passwordForm())).status, 404, "no local realm in oidc mode");
    });
  });
});

Deno.test("AUTH_MODE=oidc: an unreachable JWKS is a 503 logged with the request id, not a 401", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // nothing listens there now: every fetch of the key set is refused
  const idpIssuer = "https://idp.test/realms/acme";
  const env = {
    ...BASE_ENV,
    LOG_LEVEL: "error",
    AUTH_MODE: "oidc",
    OIDC_JWKS_URL: `http://127.0.0.1:${port}/certs`,
    OIDC_ISSUER: idpIssuer,
    OIDC_AUDIENCE: "tessera-api",
  };
  const { privateKey } = await generateKeyPair("RS256");
  const token = await sign({ ...goodClaims(), iss: idpIssuer, aud: "tessera-api" }, privateKey, {
    alg: "RS256",
    kid: "idp-key-1",
  });
  const lines = await captureConsole(() =>
    withApp(env, async (app) => {
      const t0 = Date.now();
      const res = await app.request("/test/whoami", {
        headers: { authorization: `Bearer ${token}`, "x-request-id": "jwks-down-1" },
      });
      assert.equal(res.status, 503);
      assert.equal(res.headers.get("www-authenticate"), null, "the caller's token is not to blame");
      assert.match((await res.json()).detail, /keys are unavailable/);
      assert.ok(Date.now() - t0 < 5000, "refused at once, not after a timeout");
    }), ["error"]);
  const logged = lines.map((l) => JSON.parse(l));
  assert.ok(
    logged.some((l) => l.request_id === "jwks-down-1" && /token verification/.test(l.error)),
    lines.join("\n"),
  );
});

Deno.test("AUTH_MODE=oidc: the role is read from OIDC_CLIENT_ID's roles, a set claim, or the default role", async () => {
  await withJwksServer(async (url, idpKey, kid) => {
    const idpIssuer = "https://idp.test/realms/acme";
    const base = {
      ...BASE_ENV,
      AUTH_MODE: "oidc",
      OIDC_JWKS_URL: url,
      OIDC_ISSUER: idpIssuer,
      OIDC_AUDIENCE: "api",
    };
    const hdr = { alg: "RS256", kid };
    const token = (extra: Record<string, unknown>) => {
      const { resource_access: _, ...claims } = goodClaims();
      return sign({ ...claims, iss: idpIssuer, aud: "api", ...extra }, idpKey, hdr);
    };
    await withApp(base, async (app) => {
      const none = await whoami(app, await token({}));
      assert.equal(none.status, 403);
      assert.equal(
        (await none.json()).detail,
        "This needs the viewer role; your token carries no Tessera role (viewer, reviewer or steward).",
      );
      // the audience's client roles by default
      const own = await token({ resource_access: { api: { roles: ["reviewer"] } } });
      assert.equal((await (await whoami(app, own)).json()).role, "reviewer");
    });
    const client = { ...base, OIDC_CLIENT_ID: "console", ROLE_NAMES: "steward=data-owner" };
    await withApp(client, async (app) => {
      const res = await whoami(app, await token({ resource_access: { console: { roles: ["data-owner"] } } }));
      assert.equal((await res.json()).role, "steward");
    });
    await withApp({ ...base, OIDC_ROLES_CLAIM: "groups", OIDC_DEFAULT_ROLE: "viewer" }, async (app) => {
      assert.equal(
        (await (await whoami(app, await token({ groups: ["reviewer"] }))).json()).role,
        "reviewer",
      );
      assert.equal((await (await whoami(app, await token({}))).json()).role, "viewer");
    });
  });
});
