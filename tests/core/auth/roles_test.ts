/** Reading a caller's role from token claims, as Keycloak and other providers carry roles. */
import assert from "node:assert/strict";
import { allows, roleFromClaims } from "../../../core/auth/roles.ts";
import { loadConfig } from "../../../config.ts";

Deno.test("each level includes the ones before it; no role allows nothing", () => {
  assert.equal(allows("steward", "viewer"), true);
  assert.equal(allows("reviewer", "reviewer"), true);
  assert.equal(allows("reviewer", "steward"), false);
  assert.equal(allows("viewer", "reviewer"), false);
  assert.equal(allows(null, "viewer"), false);
});

Deno.test("Keycloak's client roles of the configured client and realm roles are read; the highest wins", () => {
  // the shape of a Keycloak 26 access token with client roles of `tessera` and default realm roles
  const token = {
    realm_access: { roles: ["offline_access", "uma_authorization", "default-roles-tessera"] },
    resource_access: { tessera: { roles: ["viewer", "reviewer"] }, account: { roles: ["steward"] } },
  };
  assert.equal(roleFromClaims(token, { clientId: "tessera" }), "reviewer");
  // another client's roles do not count
  assert.equal(roleFromClaims(token, { clientId: "other" }), null);
  assert.equal(roleFromClaims({ realm_access: { roles: ["steward"] } }, { clientId: "tessera" }), "steward");
});

Deno.test("a configured claim: a list, a space-separated string, a dotted path or a URL-named claim", () => {
  const opts = { clientId: "tessera" };
  assert.equal(roleFromClaims({ groups: ["staff", "viewer"] }, { ...opts, claim: "groups" }), "viewer");
  assert.equal(roleFromClaims({ roles: "a steward b" }, { ...opts, claim: "roles" }), "steward");
  assert.equal(
    roleFromClaims({ app: { tessera: { roles: ["reviewer"] } } }, { ...opts, claim: "app.tessera.roles" }),
    "reviewer",
  );
  const url = "https://example.org/roles";
  assert.equal(roleFromClaims({ [url]: ["viewer"] }, { ...opts, claim: url }), "viewer");
  // a number or an object where names are expected is no role
  assert.equal(roleFromClaims({ groups: 3 }, { ...opts, claim: "groups" }), null);
  assert.equal(roleFromClaims({ groups: { steward: true } }, { ...opts, claim: "groups" }), null);
});

Deno.test("the provider's names of the levels, and the fallback of a token with none", () => {
  const names = { viewer: "ds-read", steward: "ds-owner" };
  const token = { resource_access: { tessera: { roles: ["ds-read"] } } };
  assert.equal(roleFromClaims(token, { clientId: "tessera", names }), "viewer");
  // once renamed, the plain name is not the level any more
  const plain = { resource_access: { tessera: { roles: ["steward"] } } };
  assert.equal(roleFromClaims(plain, { clientId: "tessera", names }), null);
  assert.equal(roleFromClaims(plain, { clientId: "tessera", names, fallback: "viewer" }), "viewer");
});

Deno.test("TESSERA_USERS takes name:password[:role]; a password may hold colons; ROLE_NAMES is checked", () => {
  const c = loadConfig({ TESSERA_USERS: "ann:pw,bo:p:w:reviewer,cy:x:viewer,di:a:b" });
  assert.deepEqual(Object.fromEntries(c.users), {
    ann: { password: "pw", role: "steward" },
    bo: { password: "p:w", role: "reviewer" },
    cy: { password: "x", role: "viewer" },
    di: { password: "a:b", role: "steward" },
  });
  assert.throws(() => loadConfig({ TESSERA_USERS: "nopassword" }), /TESSERA_USERS: 'nopassword:…'/);
  assert.deepEqual(loadConfig({ ROLE_NAMES: "steward=owner" }).ROLE_NAMES, { steward: "owner" });
  assert.throws(
    () => loadConfig({ ROLE_NAMES: "admin=root" }),
    /ROLE_NAMES: 'admin=root' is not of the form/,
  );
  assert.throws(() => loadConfig({ OIDC_DEFAULT_ROLE: "admin" }), /OIDC_DEFAULT_ROLE/);
});

Deno.test("deno task dev comes with a user per role", () => {
  const c = loadConfig({}, { dev: true });
  assert.deepEqual(
    [...c.users].map(([name, u]) => `${name}:${u.password}:${u.role}`),
    ["demo:demo:steward", "viewer:viewer:viewer", "reviewer:reviewer:reviewer"],
  );
});
