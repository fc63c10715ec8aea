/**
 * Tessera's JSON API with a real Keycloak's tokens (TEST_KEYCLOAK_URL, which `deno task test` starts):
 * each role's answers, a client as Keycloak creates it (no audience mapper), a rotation of the realm's
 * signing keys, and an expired token. What a test changes in the shared realm it puts back.
 */
import { JWKS_COOLDOWN_MS } from "../../core/auth/oidc.ts";
import assert from "node:assert/strict";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { authTestApp, type TestApp } from "../support/app.ts";
import {
  admin,
  AUDIENCE_MAPPER,
  deleteClient,
  ensurePasswordClient,
  noKeycloak,
  oidcEnv,
  tokenFrom,
  tokenOf,
} from "../support/keycloak.ts";
import { CLOCK_TOLERANCE_S } from "../../core/auth/jwt_checks.ts";

type App = TestApp["app"];

/** One route of each level (issue 38's table, as in roles_test.ts). */
const READ = { method: "GET", path: "/api/tasks/documents" };
const AUDIT = { method: "POST", path: "/api/spatial-hitl/task/zz_none/audit" };
const DELETE = { method: "DELETE", path: "/api/datasets/db/zz_none" };

const call = (app: App, route: { method: string; path: string }, token: string) =>
  app.request(route.path, {
    method: route.method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: route.method === "POST" ? "{}" : undefined,
  });

/** The status and `detail` of an answer, to compare in one assertion. */
async function answer(res: Response): Promise<{ status: number; detail?: string }> {
  const body = await res.json();
  return { status: res.status, detail: body?.detail };
}

/** Runs fn with a Tessera that trusts the test Keycloak (a verifier of its own, so a JWKS cache of its own). */
async function withTessera(fn: (app: App) => Promise<void>): Promise<void> {
  const t = await authTestApp(oidcEnv({ RATE_LIMIT_CAPACITY: "1000" }));
  try {
    await fn(t.app);
  } finally {
    await t.close();
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

Deno.test({
  name: "Keycloak: each user's client role lets them as far as their level and answers 403 beyond it",
  ignore: noKeycloak,
  fn: () =>
    withTessera(async (app) => {
      const viewer = await tokenOf("viewer");
      assert.equal((await call(app, READ, viewer)).status, 200);
      assert.deepEqual(await answer(await call(app, AUDIT, viewer)), {
        status: 403,
        detail: "This needs the reviewer role; you are a viewer.",
      });
      assert.deepEqual(await answer(await call(app, DELETE, viewer)), {
        status: 403,
        detail: "This needs the steward role; you are a viewer.",
      });

      const reviewer = await tokenOf("reviewer");
      assert.equal((await call(app, READ, reviewer)).status, 200);
      assert.equal((await call(app, AUDIT, reviewer)).status, 404); // through, to a task that is not there
      assert.deepEqual(await answer(await call(app, DELETE, reviewer)), {
        status: 403,
        detail: "This needs the steward role; you are a reviewer.",
      });

      const steward = await tokenOf("steward");
      assert.equal((await call(app, READ, steward)).status, 200);
      assert.equal((await call(app, AUDIT, steward)).status, 404);
      assert.equal((await call(app, DELETE, steward)).status, 404); // through, to a dataset that is not there

      const nobody = await tokenOf("nobody");
      const refused = await call(app, READ, nobody);
      assert.match(refused.headers.get("www-authenticate") ?? "", /error="insufficient_scope"/);
      assert.deepEqual(await answer(refused), {
        status: 403,
        detail:
          "This needs the viewer role; your token carries no Tessera role (viewer, reviewer or steward).",
      });
    }),
});

Deno.test({
  name: "Keycloak: a client without the audience mapper gets tokens Tessera refuses, naming both audiences",
  ignore: noKeycloak,
  fn: async () => {
    const client = "tessera-tests-plain";
    const username = "tessera-tests-newcomer";
    await ensurePasswordClient(client); // no mapper, as Keycloak creates a client
    // a user made through the admin API (as in the admin console) holds the realm's default roles,
    // among them the `account` client's: Keycloak's `roles` scope puts `account` in `aud` for them
    await admin("POST", "/users", {
      username,
      enabled: true,
      firstName: "New",
      lastName: "Comer",
      email: "newcomer@example.org",
      emailVerified: true,
      credentials: [{ type: "password", value: username, temporary: false }],
    });
    try {
      await withTessera(async (app) => {
        const newcomer = await tokenFrom(client, username);
        assert.equal(decodeJwt(newcomer).aud, "account");
        const res = await call(app, READ, newcomer);
        assert.equal(
          res.headers.get("www-authenticate"),
          'Bearer error="invalid_token", error_description="its audience is account, Tessera expects tessera (OIDC_AUDIENCE)"',
        );
        assert.deepEqual(await answer(res), {
          status: 401,
          detail: 'Invalid token: its audience is "account", Tessera expects "tessera" (OIDC_AUDIENCE)',
        });

        // the realm file's users hold no default roles: no `aud` at all
        const nobody = await tokenFrom(client, "nobody");
        assert.equal(decodeJwt(nobody).aud, undefined);
        assert.deepEqual(await answer(await call(app, READ, nobody)), {
          status: 401,
          detail: 'Invalid token: it has no audience, Tessera expects "tessera" (OIDC_AUDIENCE)',
        });

        // one who holds a role of the `tessera` client gets it in `aud` from the same scope, mapper or not
        const viewer = await tokenFrom(client, "viewer");
        assert.equal(decodeJwt(viewer).aud, "tessera");
        assert.equal((await call(app, READ, viewer)).status, 200);
      });
    } finally {
      const [user] = await admin("GET", `/users?exact=true&username=${username}`) as { id: string }[];
      if (user) await admin("DELETE", `/users/${user.id}`);
      await deleteClient(client);
    }
  },
});

interface Component {
  id: string;
  name: string;
  providerId: string;
  providerType: string;
  parentId: string;
  config: Record<string, string[]>;
}

/** The realm's RSA signing key providers. */
const rsaKeyProviders = async () =>
  (await admin("GET", "/components?type=org.keycloak.keys.KeyProvider") as Component[])
    .filter((c) => c.providerId === "rsa-generated");

Deno.test({
  name:
    "Keycloak: after the realm's keys rotate Tessera refetches them for the new kid; a dropped key is refused",
  ignore: noKeycloak,
  fn: async () => {
    const priority = (c: Component) => Number(c.config.priority?.[0] ?? 0);
    const signing = (c: Component) => c.config.enabled?.[0] !== "false" && c.config.active?.[0] !== "false";
    // the provider that signs now: the active one of the highest priority
    const old = (await rsaKeyProviders()).filter(signing).sort((a, b) => priority(b) - priority(a))[0];
    assert.ok(old, "the realm has an RSA signing key");
    const realm = await admin("GET", "") as { id: string };
    const rotated = "tessera-tests-rotated";
    const oldToken = await tokenOf("viewer");
    try {
      await withTessera(async (app) => {
        assert.equal((await call(app, READ, oldToken)).status, 200); // Tessera fetches the JWKS: the old key
        const fetchedAt = Date.now();

        await admin("POST", "/components", {
          name: rotated,
          providerId: "rsa-generated",
          providerType: "org.keycloak.keys.KeyProvider",
          parentId: realm.id,
          config: { priority: [String(priority(old) + 100)] },
        });
        const newToken = await tokenOf("viewer");
        const oldKid = decodeProtectedHeader(oldToken).kid;
        const newKid = decodeProtectedHeader(newToken).kid;
        assert.ok(oldKid && newKid && newKid !== oldKid, `a new kid: ${oldKid} → ${newKid}`);

        // within JWKS_COOLDOWN_MS of its last fetch jose does not fetch again, whatever the kid
        assert.ok(Date.now() - fetchedAt < JWKS_COOLDOWN_MS);
        assert.deepEqual(await answer(await call(app, READ, newToken)), {
          status: 401,
          detail: "Invalid token: unknown signing key",
        });
        await sleep(fetchedAt + JWKS_COOLDOWN_MS + 500 - Date.now());
        assert.equal((await call(app, READ, newToken)).status, 200); // refetched: both keys
        assert.equal((await call(app, READ, oldToken)).status, 200);

        await admin("PUT", `/components/${old.id}`, {
          ...old,
          config: { ...old.config, enabled: ["false"] },
        });
        // the running Tessera keeps the keys it fetched (jose's cache, 10 minutes) and still takes the old one
        assert.equal((await call(app, READ, oldToken)).status, 200);
      });
      await withTessera(async (app) => {
        // a Tessera that fetches the JWKS now finds no key for the old token's kid
        assert.equal((await call(app, READ, await tokenOf("viewer"))).status, 200);
        assert.deepEqual(await answer(await call(app, READ, oldToken)), {
          status: 401,
          detail: "Invalid token: unknown signing key",
        });
      });
    } finally {
      // Keycloak keeps a config entry an update leaves out: say both again
      const back = { ...old.config, enabled: ["true"], active: ["true"] };
      await admin("PUT", `/components/${old.id}`, { ...old, config: back });
      for (const c of await rsaKeyProviders()) {
        if (c.name === rotated) await admin("DELETE", `/components/${c.id}`);
      }
    }
  },
});

Deno.test({
  name: "Keycloak: a token past its expiry and Tessera's clock tolerance answers 401 token expired",
  ignore: noKeycloak,
  fn: async () => {
    const client = "tessera-tests-short";
    await ensurePasswordClient(client, {
      protocolMappers: [AUDIENCE_MAPPER],
      attributes: { "access.token.lifespan": "2" },
    });
    try {
      await withTessera(async (app) => {
        const token = await tokenFrom(client, "viewer");
        const { iat, exp } = decodeJwt(token);
        assert.equal(exp! - iat!, 2);
        await sleep((exp! + 1) * 1000 - Date.now());
        assert.equal((await call(app, READ, token)).status, 200); // expired, but within the tolerance
        await sleep((exp! + CLOCK_TOLERANCE_S + 1) * 1000 - Date.now());
        const res = await call(app, READ, token);
        assert.equal(
          res.headers.get("www-authenticate"),
          'Bearer error="invalid_token", error_description="token expired"',
        );
        assert.deepEqual(await answer(res), { status: 401, detail: "Invalid token: token expired" });
      });
    } finally {
      await deleteClient(client);
    }
  },
});
