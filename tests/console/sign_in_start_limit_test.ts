/** AUTH_MODE=oidc: starting sign-ins at the provider is limited per address (each keeps a flow for 10 minutes). */
import assert from "node:assert/strict";
import { testApp } from "../support/app.ts";

Deno.test("console oidc: the 21st sign-in started at once from one address answers 429 with Retry-After", async () => {
  const t = await testApp({
    AUTH_MODE: "oidc",
    OIDC_JWKS_URL: "http://127.0.0.1:9/certs",
    OIDC_ISSUER: "http://127.0.0.1:9", // nothing listens: each start that gets through answers 503
    OIDC_AUDIENCE: "tessera",
  });
  try {
    for (let i = 0; i < 20; i++) {
      const res = await t.app.request("/console/auth/start");
      await res.body?.cancel();
      assert.equal(res.status, 503, `start ${i + 1}`);
    }
    const refused = await t.app.request("/console/auth/start");
    assert.equal(refused.status, 429);
    // one token every 6 s: the next start is possible in 6 s (a whole token from empty)
    assert.equal(refused.headers.get("retry-after"), "6");
    assert.match(
      await refused.text(),
      /Too many sign-ins were started from this address; try again in 6 s\./,
    );
  } finally {
    await t.close();
  }
});
