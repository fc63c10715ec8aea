import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { jsonRequest, storeTest } from "../support/stores.ts";
import { TokenBuckets } from "../../routes/http/token_buckets.ts";
import { testApp } from "../support/app.ts";
import { createApp } from "../../app.ts";
import type { Store } from "../../store/store.ts";
import { type App, passwordForm, tokenRequest } from "./auth_fixtures.ts";

Deno.test("token buckets: capacity at once, then one per 1/rate seconds; Retry-After rounds up", () => {
  let now = 0;
  const b = new TokenBuckets(3, 0.5, () => now);
  assert.deepEqual([b.take("a"), b.take("a"), b.take("a")], [0, 0, 0]);
  assert.equal(b.take("a"), 2); // empty: one token every 2 s
  assert.equal(b.take("b"), 0); // another client has its own bucket
  now += 1500;
  assert.equal(b.take("a"), 1); // 0.75 of a token: 0.5 s more, rounded up to 1
  now += 500;
  assert.equal(b.take("a"), 0);
  now += 60_000;
  assert.deepEqual([b.take("a"), b.take("a"), b.take("a"), b.take("a")], [0, 0, 0, 2]); // refills to 3, no more
});

/** A token for `client` from the local realm's password grant (user alice). */
async function token(app: App, client: string) {
  const res = await tokenRequest(app, passwordForm({ client_id: client, client_secret: `${client}-secret` }));
  return (await res.json()).access_token as string;
}

storeTest(
  "rate limit: 429 with Retry-After per client (the token's azp), on a fake clock; 401 without a token",
  async (t) => {
    const clock = FakeTimers.install({ toFake: ["Date"], now: Date.UTC(2026, 0, 1) });
    try {
      const [a, b] = [await token(t.app, "etl"), await token(t.app, "ui")];
      const get = (tok?: string) =>
        t.app.request("/get-new-jobs/", { headers: tok ? { authorization: `Bearer ${tok}` } : {} });
      assert.equal((await get()).status, 401);
      for (let i = 0; i < 3; i++) assert.equal((await get(a)).status, 200);
      const refused = await get(a);
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get("retry-after"), "4"); // 0.25 per second: 4 s for the next token
      assert.match((await refused.json()).detail, /rate limit exceeded/);
      assert.equal((await get(b)).status, 200); // client "ui" has its own bucket
      clock.tick(3000);
      assert.equal((await get(a)).status, 429);
      assert.equal((await t.app.request("/run/", jsonRequest("POST", {}, a))).status, 429); // every route counts
      clock.tick(1000);
      assert.equal((await get(a)).status, 200);
    } finally {
      clock.uninstall();
    }
  },
  {
    auth: true,
    env: {
      RATE_LIMIT_CAPACITY: "3",
      RATE_LIMIT_PER_SECOND: "0.25",
      TESSERA_CLIENTS: "etl:etl-secret,ui:ui-secret",
    },
  },
);

storeTest("rate limit: RATE_LIMIT_CAPACITY=0 turns it off", async (t) => {
  for (let i = 0; i < 100; i++) assert.equal((await t.app.request("/get-new-jobs/")).status, 200);
}, { env: { RATE_LIMIT_CAPACITY: "0" } });

Deno.test("cleaning: a server error is a 500 with the request id and no stack trace", async () => {
  const t = await testApp();
  const broken = new Proxy(t.store, {
    get: (s, k) =>
      k === "get"
        ? () => Promise.reject(new Error("secret at /work/main/store/kv.ts:42"))
        : Reflect.get(s, k),
  }) as Store;
  const app = createApp({ config: t.config, store: broken, pool: null!, verifier: null });
  const log = console.error;
  console.error = () => {};
  try {
    const res = await app.request("/jobs/abc", { headers: { "x-request-id": "r-1" } });
    assert.equal(res.status, 500);
    const body = await res.text();
    assert.deepEqual(JSON.parse(body), { detail: "internal server error", request_id: "r-1" });
    assert.ok(!body.includes("kv.ts"));
  } finally {
    console.error = log;
    await t.close();
  }
});
