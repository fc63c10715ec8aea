/**
 * The console's sessions (services/console/sessions.ts) on both stores, with a clock the test moves:
 * sign-in through the local realm's password grant, the refresh grant when the access token has run
 * out, expiry when the refresh token has too, sign-out, kept forms, and AUTH_MODE=off.
 */
import assert from "node:assert/strict";
import { storeTest } from "../support/stores.ts";
import { configureAuth } from "../../services/auth/setup.ts";
import {
  findSession,
  keepPendingForm,
  sameToken,
  type SessionDeps,
  signIn,
  signOut,
  takePendingForm,
} from "../../services/console/sessions.ts";
import { SignInError } from "../../services/console/issuer.ts";
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";

/** Session deps over the test's store and local realm, at a time the test sets. */
async function deps(config: Config, store: Store) {
  const { realm, verifier } = await configureAuth({ config, store });
  const clock = { now: Date.now() };
  const d: SessionDeps = { store, config, realm, verifier, now: () => clock.now };
  return { d, clock, verifier: verifier! };
}

const sessionsRef = (config: Config) => ({ db: config.TESSERA_DB, collection: "_console_sessions" });

storeTest("console sessions: sign-in, refresh, expiry, sign-out", async ({ store, config }) => {
  const { d, clock, verifier } = await deps(config, store);

  await assert.rejects(
    signIn(d, { username: "alice", password: "nope" }),
    (e) =>
      e instanceof SignInError && e.reason === "refused" && e.message === "Invalid username or password.",
  );
  assert.equal(await store.count(sessionsRef(config)), 0, "a refused sign-in stores nothing");

  const start = clock.now;
  const { secret, session } = await signIn(d, { username: "alice", password: "wonderland" });
  assert.equal(session.username, "alice");
  assert.match(secret, /^[A-Za-z0-9_-]{43}$/); // 32 random bytes, base64url
  assert.match(session.csrf, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(session.csrf, secret);
  assert.equal(session.expiresAt, start + 300_000, "TOKEN_TTL_SECONDS (300 s) from now");
  // the subject is the one the JSON API would see in the same user's token
  const tokenSub =
    (await verifier.verify((await d.realm!.issuer.issue("alice", "tessera", "steward")).access_token)).sub;
  assert.equal(session.sub, tokenSub);

  // the store holds the hash of the secret, never the secret itself
  const [doc] = await store.list(sessionsRef(config));
  const hash = Array.from(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret))),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  assert.equal(doc._id, hash);
  assert.ok(!JSON.stringify(doc).includes(secret));

  assert.equal((await findSession(d, "not-a-session")).state, "none");
  const live = await findSession(d, secret);
  assert.equal(live.state, "active");
  assert.deepEqual(live.state === "active" && live.session, session);

  // 4:56 later the access token has less than the 5 s margin left: the refresh grant renews it
  clock.now = start + 296_000;
  const refreshed = await findSession(d, secret);
  assert.equal(refreshed.state, "active");
  assert.equal(refreshed.state === "active" && refreshed.session.expiresAt, clock.now + 300_000);
  assert.equal(refreshed.state === "active" && refreshed.session.csrf, session.csrf, "the CSRF token stays");
  const [after] = await store.list(sessionsRef(config));
  assert.notEqual(after.refresh_token, doc.refresh_token, "a new refresh token");
  assert.equal(
    after.refresh_expires_at,
    clock.now + 1_800_000,
    "REFRESH_TTL_SECONDS (1800 s) from the refresh",
  );

  // past the refresh token's end: expired (with who it was and its CSRF token), and deleted
  clock.now = (after.refresh_expires_at as number) + 1;
  const ended = await findSession(d, secret);
  assert.equal(ended.state, "expired");
  assert.equal(ended.state === "expired" && ended.session.username, "alice");
  assert.equal(ended.state === "expired" && ended.session.csrf, session.csrf);
  assert.equal(await store.count(sessionsRef(config)), 0);
  assert.equal((await findSession(d, secret)).state, "none");

  // a refresh token the issuer refuses ends the session too
  clock.now = Date.now();
  const second = await signIn(d, { username: "alice", password: "wonderland" });
  const [doc2] = await store.list(sessionsRef(config));
  await store.patch(sessionsRef(config), doc2._id, { expires_at: 0, refresh_token: "forged.refresh.token" });
  assert.equal((await findSession(d, second.secret)).state, "expired");

  // sign-out deletes the session
  const third = await signIn(d, { username: "alice", password: "wonderland" });
  await signOut(d, third.secret);
  assert.equal((await findSession(d, third.secret)).state, "none");
  assert.equal(await store.count(sessionsRef(config)), 0);
}, { auth: true });

storeTest("console sessions: a sign-in sweeps the sessions that have ended", async ({ store, config }) => {
  const { d, clock } = await deps(config, store);
  await signIn(d, { username: "alice", password: "wonderland" });
  clock.now += 1_800_000 + 300_000 + 1; // both tokens of the first session have run out
  await signIn(d, { username: "alice", password: "wonderland" });
  assert.equal(await store.count(sessionsRef(config)), 1);
}, { auth: true });

storeTest(
  "console sessions: a kept form goes back once, to its owner, while it lasts",
  async ({ store, config }) => {
    const { d, clock } = await deps(config, store);
    const form = { path: "/console/tasks", fields: { database_name: "demo", data_collection_name: "late" } };
    const id = await keepPendingForm(d, "alice", form);
    assert.equal(await takePendingForm(d, id, "mallory"), null, "not for someone else");
    assert.deepEqual(await takePendingForm(d, id, "alice"), form);
    assert.equal(await takePendingForm(d, id, "alice"), null, "only once");
    const old = await keepPendingForm(d, "alice", form);
    clock.now += 60 * 60 * 1000; // an hour later
    assert.equal(await takePendingForm(d, old, "alice"), null);
    assert.equal(await takePendingForm(d, "no-such-id", "alice"), null);
  },
  { auth: true },
);

storeTest(
  "console sessions: a kept form's field names may hold dots, a leading $ or __proto__ (MongoDB refuses such keys)",
  async ({ store, config }) => {
    const { d } = await deps(config, store);
    // Object.fromEntries makes `__proto__` an own field, as a form's fields are read
    const pairs = [["mapping.y_pred", "pred"], ["$where", "x"], ["__proto__", "p"], ["plain", "v"]];
    const form = { path: "/console/tasks/t", fields: Object.fromEntries(pairs) };
    const id = await keepPendingForm(d, "alice", form);
    const back = await takePendingForm(d, id, "alice");
    assert.deepEqual(Object.entries(back!.fields), [
      ["mapping.y_pred", "pred"],
      ["$where", "x"],
      ["__proto__", "p"],
      ["plain", "v"],
    ]);
  },
  { auth: true },
);

storeTest(
  "console sessions: AUTH_MODE=off signs anyone in, for REFRESH_TTL_SECONDS unused",
  async ({ store, config }) => {
    const clock = { now: Date.now() };
    const d: SessionDeps = { store, config, realm: null, verifier: null, now: () => clock.now };
    const start = clock.now;
    const { secret, session } = await signIn(d, { username: "anyone", password: "" });
    assert.equal(session.expiresAt, start + 1_800_000);
    clock.now = start + 1_000_000; // more than half the idle time gone: it starts again
    const used = await findSession(d, secret);
    assert.equal(used.state === "active" && used.session.expiresAt, clock.now + 1_800_000);
    clock.now += 1_800_000;
    assert.equal((await findSession(d, secret)).state, "expired");
  },
  { env: { AUTH_MODE: "off" } },
);

storeTest(
  "console sessions: one from before roles is renewed at once and gets its role from the new token",
  async ({ store, config }) => {
    const { d } = await deps(config, store);
    const { secret, session } = await signIn(d, { username: "alice", password: "wonderland" });
    assert.equal(session.role, "steward"); // TESSERA_USERS gives alice no role: steward
    // as a session stored before roles looks: no role field, and a token with minutes left
    await store.updateFields(sessionsRef(config), [{ id: session.id, set: {}, unset: ["role"] }]);
    const [doc] = await store.list(sessionsRef(config));
    assert.equal(doc.role, undefined);
    const found = await findSession(d, secret);
    assert.equal(found.state, "active");
    assert.equal(found.state === "active" && found.session.role, "steward");
    const [renewed] = await store.list(sessionsRef(config));
    assert.equal(renewed.role, "steward", "stored with the renewed token");
  },
  { auth: true },
);

Deno.test("sameToken: equal strings only", () => {
  assert.equal(sameToken("abc", "abc"), true);
  assert.equal(sameToken("abc", "abd"), false);
  assert.equal(sameToken("abc", "ab"), false);
  assert.equal(sameToken("", ""), true);
});
