/**
 * The real Keycloak `deno task test` starts (scripts/keycloak.ts) as TEST_KEYCLOAK_URL, with the realm of
 * deploy/keycloak/tessera-realm.json, and what its tests do to it through Keycloak's admin REST API.
 * Without TEST_KEYCLOAK_URL the Keycloak tests are ignored.
 */
import { KEYCLOAK_ADMIN } from "../../scripts/keycloak.ts";

export const KEYCLOAK_URL = Deno.env.get("TEST_KEYCLOAK_URL");
/** Set on every Keycloak test: true (ignored) when no Keycloak runs. */
export const noKeycloak = !KEYCLOAK_URL;
export const REALM = "tessera";
export const ISSUER = `${KEYCLOAK_URL}/realms/${REALM}`;
export const JWKS_URL = `${ISSUER}/protocol/openid-connect/certs`;
export const TOKEN_URL = `${ISSUER}/protocol/openid-connect/token`;
/** The realm file's confidential client: the audience of Tessera's tokens and the console's client. */
export const CLIENT_ID = "tessera";
export const CLIENT_SECRET = "change-me-tessera-console-secret";
/** A public client with the password grant, made by the tests only, to get each user's tokens quickly. */
const TEST_CLIENT = "tessera-tests";

/** The environment of a Tessera that trusts this Keycloak. */
export function oidcEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    AUTH_MODE: "oidc",
    OIDC_ISSUER: ISSUER,
    OIDC_JWKS_URL: JWKS_URL,
    OIDC_AUDIENCE: CLIENT_ID,
    CONSOLE_CLIENT_ID: CLIENT_ID,
    CONSOLE_CLIENT_SECRET: CLIENT_SECRET,
    ...extra,
  };
}

async function form(url: string, fields: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: "POST", body: new URLSearchParams(fields) });
  const body = await res.json();
  if (!res.ok) throw new Error(`POST ${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

/** A token of the master realm's bootstrap admin. */
async function adminToken(): Promise<string> {
  const body = await form(`${KEYCLOAK_URL}/realms/master/protocol/openid-connect/token`, {
    grant_type: "password",
    client_id: "admin-cli",
    ...KEYCLOAK_ADMIN,
  });
  return body.access_token as string;
}

/** Calls the admin REST API on the tessera realm; the parsed answer, if any. */
export async function admin(method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${KEYCLOAK_URL}/admin/realms/${REALM}${path}`, {
    method,
    headers: { authorization: `Bearer ${await adminToken()}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The internal id of a client of the realm. */
export async function clientUuid(clientId: string): Promise<string | undefined> {
  const found = await admin("GET", `/clients?clientId=${encodeURIComponent(clientId)}`) as { id: string }[];
  return found[0]?.id;
}

/** The mapper that puts `tessera` in a client's access tokens' `aud`, as the realm file's client has it. */
export const AUDIENCE_MAPPER = {
  name: "tessera audience",
  protocol: "openid-connect",
  protocolMapper: "oidc-audience-mapper",
  config: { "included.client.audience": CLIENT_ID, "access.token.claim": "true" },
};

/**
 * Creates, unless it exists, a public client with the password grant (and no browser flow) and what
 * `settings` add: mappers, attributes such as `access.token.lifespan`. Without settings it has no mapper
 * of its own, as a client Keycloak's admin API or console creates.
 */
export async function ensurePasswordClient(
  clientId: string,
  settings: Record<string, unknown> = {},
): Promise<void> {
  if (await clientUuid(clientId)) return;
  await admin("POST", "/clients", {
    clientId,
    publicClient: true,
    standardFlowEnabled: false,
    directAccessGrantsEnabled: true,
    ...settings,
  });
}

/** Deletes a client of the realm if it exists. */
export async function deleteClient(clientId: string): Promise<void> {
  const id = await clientUuid(clientId);
  if (id) await admin("DELETE", `/clients/${id}`);
}

/** A user's access token through a password-grant client of the realm (password: the user's name unless given). */
export async function tokenFrom(clientId: string, username: string, password = username): Promise<string> {
  const body = await form(TOKEN_URL, { grant_type: "password", client_id: clientId, username, password });
  return body.access_token as string;
}

let testClient: Promise<void> | undefined;

/** Creates (once) the tests' password-grant client, whose tokens carry Tessera's audience and roles. */
function ensureTestClient(): Promise<void> {
  return testClient ??= ensurePasswordClient(TEST_CLIENT, {
    fullScopeAllowed: true,
    protocolMappers: [AUDIENCE_MAPPER],
  });
}

/** A user's tokens (access, refresh) from the realm; the realm's users' passwords equal their names. */
export async function tokensOf(username: string): Promise<{ access_token: string; refresh_token: string }> {
  await ensureTestClient();
  const body = await form(TOKEN_URL, {
    grant_type: "password",
    client_id: TEST_CLIENT,
    username,
    password: username,
  });
  return body as { access_token: string; refresh_token: string };
}

/** A user's access token. */
export async function tokenOf(username: string): Promise<string> {
  return (await tokensOf(username)).access_token;
}

/** Lets the `tessera` client send people back to (and sign them out to) a Tessera on `origin`. */
export async function allowConsoleAt(origin: string): Promise<void> {
  const id = await clientUuid(CLIENT_ID);
  const client = await admin("GET", `/clients/${id}`) as {
    redirectUris: string[];
    attributes: Record<string, string>;
  };
  const callback = `${origin}/console/auth/callback`;
  if (client.redirectUris.includes(callback)) return;
  client.redirectUris.push(callback);
  const logout = client.attributes["post.logout.redirect.uris"] ?? "";
  client.attributes["post.logout.redirect.uris"] = [logout, `${origin}/console/sign-in`].filter(Boolean).join(
    "##",
  );
  await admin("PUT", `/clients/${id}`, client);
}
