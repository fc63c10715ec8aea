/** The failed-login counts on an injected clock, and the address an attempt counts under. */
import assert from "node:assert/strict";
import { addressKey, LoginThrottle, MAX_KEYS } from "../../../services/auth/login_throttle.ts";

Deno.test("addressKey: IPv4 as is, IPv4-mapped as IPv4, IPv6 by its /64", () => {
  const cases: [string, string][] = [
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["2001:0DB8:0000:0000:ffff:0:0:1", "2001:db8:0:0::/64"],
    ["[2001:db8:aa:bb::]", "2001:db8:aa:bb::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["64:ff9b::192.0.2.33", "64:ff9b:0:0::/64"],
    ["unknown", "unknown"],
    ["1::2::3", "1::2::3"], // not an address: counted as given
  ];
  for (const [given, key] of cases) assert.equal(addressKey(given), key, given);
});

Deno.test("LoginThrottle: sliding windows per pair, per address, per username; trust after success", () => {
  let now = 1_000_000;
  const t = new LoginThrottle({
    pair: { failures: 2, windowMs: 10_000 },
    address: { failures: 3, windowMs: 15_000 },
    username: { failures: 3, windowMs: 20_000 },
    trustMs: 100_000,
  }, () => now);
  t.failed("ann", "a1");
  now += 4000;
  t.failed("ann", "a1");
  // two failures at 0 s and 4 s: blocked until the first leaves the window at 10 s
  assert.equal(t.check("ann", "a1"), 6);
  now += 5500; // 9.5 s: 0.5 s left, rounded up
  assert.equal(t.check("ann", "a1"), 1);
  now += 500;
  assert.equal(t.check("ann", "a1"), 0);
  // the address: a third failure under another name reaches its limit (3 in 15 s: 0 s, 4 s, 10 s)
  t.failed("bo", "a1");
  assert.equal(t.check("cy", "a1"), 5);
  assert.equal(t.check("cy", "a2"), 0);
  // the username: 3 failures in 20 s (0 s, 4 s, 10 s) block ann from anywhere but a trusted pair
  assert.equal(t.check("ann", "a9"), 0);
  t.failed("ann", "a3");
  assert.equal(t.check("ann", "a9"), 10); // the failure at 0 s leaves the 20 s window at 20 s
  t.succeeded("ann", "a4"); // forgets ann's failures and trusts (ann, a4)
  assert.equal(t.check("ann", "a9"), 0);
  for (const a of ["b1", "b2", "b3"]) t.failed("ann", a);
  assert.equal(t.check("ann", "a9"), 20);
  assert.equal(t.check("ann", "a4"), 0, "the trusted pair is exempt from the username count");
  now += 100_000; // the trust has lapsed, and so have the failures
  assert.equal(t.check("ann", "a4"), 0);
  for (const a of ["c1", "c2", "c3"]) t.failed("ann", a);
  assert.equal(t.check("ann", "a4"), 20);
});

Deno.test("LoginThrottle: memory stays bounded, and cheap, under a spray of names and addresses", () => {
  let now = 0;
  const t = new LoginThrottle(undefined, () => now);
  const internals = t as unknown as Record<string, { times: Map<string, number[]> }>;
  const sizes = () => ["pairs", "addresses", "usernames"].map((k) => internals[k].times.size);
  const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  const t0 = performance.now();
  // 150,000 failures 1 ms apart: at most 60,000 of them in the 60 s window at any time
  for (let i = 0; i < 150_000; i++) {
    t.failed(`user${i}`, ip(i));
    now += 1;
  }
  for (const size of sizes()) assert.ok(size <= 2 * 60_000 && size >= 60_000, `${size}`);
  // the recent keys are all kept: the last user's 4 more failures from its address reach the pair limit
  for (let k = 0; k < 4; k++) t.failed("user149999", ip(149_999));
  assert.equal(t.check("user149999", ip(149_999)), 60);
  // 150,000 more at one instant (all in the window): the hard bound holds
  for (let i = 0; i < 150_000; i++) t.failed(`spray${i}`, ip(i));
  for (const size of sizes()) assert.ok(size <= MAX_KEYS, `${size}`);
  // pruning is amortised: a quadratic one would take minutes here (about 1 s here)
  assert.ok(performance.now() - t0 < 15_000, `took ${performance.now() - t0} ms`);
});
