/**
 * The token endpoint's limit on failed password attempts (issue 21, item 7), through the HTTP surface
 * with a fake clock: a few failures of one user from one address answer 429 with Retry-After; an unknown
 * user gets exactly the same answers; the real user's own address keeps working while another address
 * is refused; one address spraying many usernames is stopped; the refusal ends when the window has passed.
 * The limits are those documented in services/auth/login_throttle.ts (5 per pair, 10 per user, 20 per
 * address, in 60 s).
 */
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { BASE_ENV, passwordForm, TOKEN_PATH, withApp } from "./auth_fixtures.ts";
import type { App } from "./auth_fixtures.ts";

/** A password-grant request as if sent from `address` (Deno.serve's remoteAddr). */
function attempt(app: App, address: string, over: Record<string, string> = {}) {
  return app.request(TOKEN_PATH, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(passwordForm(over)),
  }, { remoteAddr: { hostname: address, port: 40000, transport: "tcp" } });
}

/** Status, Retry-After and body of an answer. */
async function answer(res: Response) {
  return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
}

/** Runs fn with Date faked from 2026-01-01, then restores it. */
async function withClock(fn: (clock: ReturnType<typeof FakeTimers.install>) => Promise<void>) {
  const clock = FakeTimers.install({ toFake: ["Date"], now: Date.UTC(2026, 0, 1) });
  try {
    await fn(clock);
  } finally {
    clock.uninstall();
  }
}

Deno.test("token endpoint: 5 wrong passwords of one user from one address, then 429 with Retry-After", async () => {
  await withClock(async (clock) => {
    await withApp(BASE_ENV, async (app) => {
      for (let i = 0; i < 5; i++) {
        const a = await answer(await attempt(app, "10.0.0.9", { password: `guess${i}` }));
        assert.equal(a.status, 401, `attempt ${i + 1}`);
        assert.equal(a.body.error, "invalid_grant");
        clock.tick(1000);
      }
      // the 6th, 5 s after the first failure: refused without checking, even with the right password
      const refused = await answer(await attempt(app, "10.0.0.9"));
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error, "temporarily_unavailable");
      // the first failure (t = 0) leaves the 60 s window at t = 60 s; it is t = 5 s now
      assert.equal(refused.retryAfter, "55");
      assert.match(refused.body.error_description, /try again in 55 s/);

      clock.tick(54_000); // t = 59 s: still refused, 1 s to go
      assert.equal((await answer(await attempt(app, "10.0.0.9"))).retryAfter, "1");
      clock.tick(1000); // t = 60 s: only 4 failures in the window now
      const ok = await attempt(app, "10.0.0.9");
      assert.equal(ok.status, 200);
      // a success forgets the pair's failures: 5 more wrong guesses before the next 429
      for (let i = 0; i < 5; i++) {
        assert.equal((await attempt(app, "10.0.0.9", { password: "x" })).status, 401, `after success ${i}`);
      }
      assert.equal((await attempt(app, "10.0.0.9", { password: "x" })).status, 429);
    });
  });
});

Deno.test("token endpoint: an unknown user gets the same answers as a known one", async () => {
  await withClock(async () => {
    await withApp(BASE_ENV, async (app) => {
      const seen: Record<string, unknown[]> = { alice: [], nobody: [] };
      for (const user of ["alice", "nobody"]) {
        for (let i = 0; i < 7; i++) {
          const a = await answer(
            await attempt(app, `10.0.1.${user.length}`, { username: user, password: "x" }),
          );
          seen[user].push(a);
        }
      }
      assert.deepEqual(seen.nobody, seen.alice);
      assert.deepEqual(seen.alice.map((a) => (a as { status: number }).status), [
        401,
        401,
        401,
        401,
        401,
        429,
        429,
      ]);
    });
  });
});

Deno.test("token endpoint: an attack from many addresses blocks the user elsewhere, not at the user's own address", async () => {
  await withClock(async (clock) => {
    await withApp(BASE_ENV, async (app) => {
      // alice signs in from her usual address: that pair is now known to be hers
      assert.equal((await attempt(app, "192.0.2.1")).status, 200);
      // 10 failures from 10 addresses (1 each, below every per-address and per-pair limit)
      for (let i = 0; i < 10; i++) {
        assert.equal((await attempt(app, `198.51.100.${i}`, { password: "x" })).status, 401, `address ${i}`);
      }
      // the 11th address is refused for alice, right password or not ...
      const other = await answer(await attempt(app, "198.51.100.200"));
      assert.equal(other.status, 429);
      assert.equal(other.retryAfter, "60");
      // ... bob is not affected ...
      const bob = await attempt(app, "198.51.100.200", { username: "bob", password: "builder" });
      assert.equal(bob.status, 200);
      // ... and alice from her own address still gets in (which forgets the failures counted on her name)
      assert.equal((await attempt(app, "192.0.2.1")).status, 200);
      assert.equal((await attempt(app, "198.51.100.200")).status, 200);

      // without a success, the lock on alice lasts one window at most
      for (let i = 0; i < 10; i++) {
        assert.equal((await attempt(app, `198.51.100.${20 + i}`, { password: "x" })).status, 401);
      }
      clock.tick(59_000);
      const still = await answer(await attempt(app, "198.51.100.201"));
      assert.deepEqual([still.status, still.retryAfter], [429, "1"]);
      clock.tick(1000);
      assert.equal((await attempt(app, "198.51.100.201")).status, 200);
    });
  });
});

Deno.test("token endpoint: one address trying many usernames is stopped after 20 failures", async () => {
  await withClock(async (clock) => {
    await withApp(BASE_ENV, async (app) => {
      for (let i = 0; i < 20; i++) {
        const res = await attempt(app, "203.0.113.5", { username: `user${i}`, password: "x" });
        assert.equal(res.status, 401, `user${i}`);
      }
      const res = await attempt(app, "203.0.113.5", { username: "user20", password: "x" });
      assert.equal(res.status, 429);
      assert.equal(res.headers.get("retry-after"), "60");
      // another address is not affected
      assert.equal((await attempt(app, "203.0.113.6")).status, 200);
      clock.tick(60_000);
      assert.equal((await attempt(app, "203.0.113.5")).status, 200);
    });
  });
});

Deno.test("token endpoint: IPv6 addresses of one /64 count as one address", async () => {
  await withClock(async () => {
    await withApp(BASE_ENV, async (app) => {
      for (let i = 0; i < 20; i++) {
        const res = await attempt(app, `2001:db8:1:2::${(i + 1).toString(16)}`, {
          username: `u${i}`,
          password: "x",
        });
        assert.equal(res.status, 401, `u${i}`);
      }
      const res = await attempt(app, "2001:db8:1:2:ffff:ffff:ffff:ffff", { username: "u99", password: "x" });
      assert.equal(res.status, 429);
      assert.equal((await attempt(app, "2001:db8:1:3::1", { username: "u99", password: "x" })).status, 401);
    });
  });
});

Deno.test("the console's sign-in counts against the same limit, by the browser's address", async () => {
  await withClock(async () => {
    await withApp(BASE_ENV, async (app) => {
      const signIn = (password: string, address: string) =>
        app.request("/console/sign-in", {
          method: "POST",
          headers: { origin: "http://tessera.test" },
          body: new URLSearchParams({ username: "alice", password }),
        }, { remoteAddr: { hostname: address, port: 40000, transport: "tcp" } });
      for (let i = 0; i < 5; i++) {
        assert.equal((await signIn("x", "10.9.9.9")).status, 422, `attempt ${i + 1}`);
      }
      const refused = await signIn("wonderland", "10.9.9.9");
      assert.equal(refused.status, 429);
      assert.match(await refused.text(), /Too many failed sign-ins; try again in 60 seconds/);
      // the token endpoint, from the same address, is refused too: one count
      assert.equal((await attempt(app, "10.9.9.9")).status, 429);
      // another browser is not
      assert.equal((await signIn("wonderland", "10.9.9.10")).status, 303);
    });
  });
});
