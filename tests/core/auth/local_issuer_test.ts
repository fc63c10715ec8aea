/** The local issuer without HTTP: subjects, and access versus refresh tokens. */
import assert from "node:assert/strict";
import { exportJWK, generateKeyPair } from "jose";
import { LocalIssuer, subjectFor, uuidV5 } from "../../../core/auth/local_issuer.ts";
import { AuthError } from "../../../core/auth/types.ts";

Deno.test("uuidV5 matches Python's uuid.uuid5 (the example in its documentation)", async () => {
  // >>> uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org') → 886313e1-3b8a-5372-9b90-0c9aee199e5d
  assert.equal(
    await uuidV5("6ba7b810-9dad-11d1-80b4-00c04fd430c8", "python.org"),
    "886313e1-3b8a-5372-9b90-0c9aee199e5d",
  );
});

Deno.test("subjects are stable per user and differ between users and realms", async () => {
  assert.equal(await subjectFor("tessera", "alice"), await subjectFor("tessera", "alice"));
  assert.notEqual(await subjectFor("tessera", "alice"), await subjectFor("tessera", "bob"));
  assert.notEqual(await subjectFor("tessera", "alice"), await subjectFor("other", "alice"));
});

async function issuer(): Promise<LocalIssuer> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return await LocalIssuer.create({ kid: "k1", alg: "ES256", privateJwk: await exportJWK(privateKey) }, {
    issuer: "http://localhost:8000/realms/tessera",
    audience: "tessera",
    realm: "tessera",
    accessTtlSeconds: 60,
    refreshTtlSeconds: 120,
  });
}

Deno.test("access and refresh tokens are not interchangeable", async () => {
  const iss = await issuer();
  const t = await iss.issue("alice", "tessera", "reviewer");
  const p = await iss.verify(t.access_token);
  assert.equal(p.username, "alice");
  assert.equal(p.clientId, "tessera");
  assert.equal(p.role, "reviewer"); // carried as resource_access.<audience>.roles, read back
  assert.deepEqual(await iss.verifyRefresh(t.refresh_token), {
    username: "alice",
    clientId: "tessera",
    sessionId: t.session_state,
  });
  await assert.rejects(iss.verify(t.refresh_token), AuthError);
  await assert.rejects(iss.verifyRefresh(t.access_token), AuthError);
});

Deno.test("the JWKS holds no private member", async () => {
  const [key] = (await issuer()).jwks().keys;
  assert.equal(key.d, undefined);
  assert.equal(key.kid, "k1");
  assert.equal(key.use, "sig");
});
