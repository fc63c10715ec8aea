/**
 * AUTH_MODE=local: a protected route against every kind of missing, stale or forged token, one step per
 * case so that one failure does not hide the others.
 */
import assert from "node:assert/strict";
import { decodeJwt, exportSPKI, generateKeyPair, importJWK } from "jose";
import { loadOrCreateSigningKey } from "../../services/auth/signing_key.ts";
import {
  assertInvalidToken,
  assertMissingToken,
  BASE_ENV,
  goodClaims,
  ISSUER,
  login,
  sign,
  unsigned,
  whoami,
  withApp,
  withPayload,
} from "./auth_fixtures.ts";

Deno.test("protected route rejects every missing, forged or stale token with invalid_token", async (t) => {
  await withApp(BASE_ENV, async (app, store) => {
    const key = await loadOrCreateSigningKey(store, "tessera");
    const ours = await importJWK(key.privateJwk, "ES256") as CryptoKey;
    const hdr = { alg: "ES256", kid: key.kid };
    const now = Math.floor(Date.now() / 1000);
    const publicJwk = { ...key.privateJwk };
    delete publicJwk.d;
    /** HS256 with the text of our public key as the HMAC secret: the classic algorithm-confusion forgery. */
    const hmacWith = (secret: string) =>
      sign(goodClaims(), new TextEncoder().encode(secret), { alg: "HS256", kid: key.kid });

    await t.step("control: a well-formed token signed with our key passes", async () => {
      assert.equal((await whoami(app, await sign(goodClaims(), ours, hdr))).status, 200);
    });
    await t.step("missing", async () => {
      await assertMissingToken(await whoami(app));
    });
    await t.step("expired", async () => {
      const expired = await sign({ ...goodClaims(), iat: now - 600, exp: now - 60 }, ours, hdr);
      await assertInvalidToken(await whoami(app, expired), /expired/);
    });
    await t.step("tampered payload under a real signature", async () => {
      const { access_token } = await login(app);
      const token = access_token as string;
      const tampered = withPayload(token, { ...decodeJwt(token), preferred_username: "bob" });
      await assertInvalidToken(await whoami(app, tampered), /signature/);
    });
    await t.step("wrong issuer", async () => {
      const token = await sign({ ...goodClaims(), iss: "http://evil.test/realms/tessera" }, ours, hdr);
      const res = await whoami(app, token);
      const detail = `Invalid token: its issuer is "http://evil.test/realms/tessera", Tessera expects ` +
        `"${ISSUER}" (PUBLIC_URL and TESSERA_REALM)`;
      await assertInvalidToken(
        res.clone(),
        /its issuer is http:\/\/evil\.test\/realms\/tessera, Tessera expects/,
      );
      assert.equal((await res.json()).detail, detail);
    });
    await t.step("wrong audience", async () => {
      const res = await whoami(app, await sign({ ...goodClaims(), aud: "account" }, ours, hdr));
      await assertInvalidToken(
        res.clone(),
        /its audience is account, Tessera expects tessera \(OIDC_AUDIENCE\)/,
      );
      assert.equal(
        (await res.json()).detail,
        `Invalid token: its audience is "account", Tessera expects "tessera" (OIDC_AUDIENCE)`,
      );
    });
    await t.step("no audience: said so, nothing else of the token echoed", async () => {
      const noAud = { ...goodClaims(), preferred_username: "secret-name" };
      delete noAud.aud;
      const res = await whoami(app, await sign(noAud, ours, hdr));
      await assertInvalidToken(res.clone(), /it has no audience/);
      const detail = (await res.json()).detail;
      assert.equal(detail, `Invalid token: it has no audience, Tessera expects "tessera" (OIDC_AUDIENCE)`);
    });
    await t.step("not an access token (typ ID)", async () => {
      await assertInvalidToken(await whoami(app, await sign({ ...goodClaims(), typ: "ID" }, ours, hdr)));
    });
    await t.step("no exp claim", async () => {
      const noExp = { ...goodClaims() };
      delete noExp.exp;
      await assertInvalidToken(await whoami(app, await sign(noExp, ours, hdr)));
    });
    await t.step("alg none", async () => {
      await assertInvalidToken(await whoami(app, unsigned(goodClaims())), /algorithm/);
    });
    await t.step("HS256 signed with the public key as PEM", async () => {
      const pem = await exportSPKI(await importJWK(publicJwk, "ES256", { extractable: true }) as CryptoKey);
      await assertInvalidToken(await whoami(app, await hmacWith(pem)), /algorithm/);
    });
    await t.step("HS256 signed with the public key as JWK", async () => {
      await assertInvalidToken(await whoami(app, await hmacWith(JSON.stringify(publicJwk))), /algorithm/);
    });
    await t.step("HS256 signed with the key as the JWKS serves it", async () => {
      const jwks = await (await app.request("/realms/tessera/protocol/openid-connect/certs")).json();
      await assertInvalidToken(await whoami(app, await hmacWith(JSON.stringify(jwks.keys[0]))), /algorithm/);
    });
    await t.step("signed by a stranger's key under our kid", async () => {
      const stranger = await generateKeyPair("ES256");
      await assertInvalidToken(
        await whoami(app, await sign(goodClaims(), stranger.privateKey, hdr)),
        /signature/,
      );
    });
  });
});
