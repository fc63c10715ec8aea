/**
 * AUTH_MODE=local: the Keycloak-compatible endpoints of Tessera's own realm. A client written for
 * Keycloak (spec 3: password grant, form-encoded) gets the same answers, errors included.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { newRouter } from "../http/router.ts";
import { json } from "../http/schemas.ts";
import { AuthError } from "../../core/auth/types.ts";
import { type LocalIssuer, SCOPE, type TokenResponse } from "../../core/auth/local_issuer.ts";
import type { SecretTable } from "../../core/auth/passwords.ts";

/** What the realm routes need: its name, the issuer, and the users and clients allowed to log in. */
export interface RealmDeps {
  realm: string;
  issuer: LocalIssuer;
  users: SecretTable;
  clients: SecretTable;
}

/** An OAuth 2.0 error answer (RFC 6749 §5.2) as Keycloak words it. */
class OAuthError extends Error {
  constructor(readonly status: 400 | 401, readonly error: string, readonly description: string) {
    super(description);
  }
}

const field = (description: string) => z.string().optional().openapi({ description });
const TokenForm = z.object({
  grant_type: field("`password` or `refresh_token`"),
  client_id: field("The client's id (or send it with client_secret as HTTP Basic)"),
  client_secret: field("The client's secret"),
  username: field("password grant: the user's name"),
  password: field("password grant: the user's password"),
  refresh_token: field("refresh_token grant: a refresh token from an earlier answer"),
  scope: field("Ignored: every token carries `openid profile email`"),
}).openapi("TokenRequest");

const TokenBody = z.object({
  access_token: z.string(),
  expires_in: z.number().int(),
  refresh_expires_in: z.number().int(),
  refresh_token: z.string(),
  token_type: z.literal("Bearer"),
  "not-before-policy": z.number().int(),
  session_state: z.string(),
  scope: z.string(),
}).openapi("TokenResponse");

const OAuthErrorBody = z.object({ error: z.string(), error_description: z.string().optional() }).openapi(
  "OAuthError",
);
const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).openapi("JWKS");
const Discovery = z.record(z.string(), z.unknown()).openapi("OpenIDConfiguration");
const params = z.object({
  realm: z.string().openapi({ param: { name: "realm", in: "path" }, example: "tessera" }),
});
const noRealm = json(OAuthErrorBody, "Realm does not exist");
/** Keycloak's answer for any realm but the configured one. */
const NO_REALM = { error: "Realm does not exist" };

const tokenRoute = createRoute({
  method: "post",
  path: "/realms/{realm}/protocol/openid-connect/token",
  tags: ["auth"],
  summary: "Get a token (OAuth 2.0 password or refresh_token grant, as Keycloak)",
  request: {
    params,
    body: { content: { "application/x-www-form-urlencoded": { schema: TokenForm } }, required: true },
  },
  responses: {
    200: json(TokenBody, "Access and refresh token"),
    400: json(OAuthErrorBody, "invalid_request, unsupported_grant_type, or a bad refresh token"),
    401: json(OAuthErrorBody, "invalid_client or invalid_grant (wrong user credentials)"),
    404: noRealm,
  },
});

const certsRoute = createRoute({
  method: "get",
  path: "/realms/{realm}/protocol/openid-connect/certs",
  tags: ["auth"],
  summary: "The realm's public signing keys (JWKS)",
  request: { params },
  responses: { 200: json(Jwks, "JSON Web Key Set"), 404: noRealm },
});

const discoveryRoute = createRoute({
  method: "get",
  path: "/realms/{realm}/.well-known/openid-configuration",
  tags: ["auth"],
  summary: "OpenID Connect discovery document",
  request: { params },
  responses: { 200: json(Discovery, "Issuer metadata"), 404: noRealm },
});

/** The token, certs and discovery endpoints of the one configured realm. */
export function realmRoutes(d: RealmDeps) {
  const app = newRouter();
  app.openapi(
    tokenRoute,
    async (c) => {
      if (c.req.valid("param").realm !== d.realm) return c.json(NO_REALM, 404);
      c.header("Cache-Control", "no-store");
      c.header("Pragma", "no-cache");
      try {
        return c.json(await grant(c.req.valid("form"), c.req.header("authorization"), d), 200);
      } catch (e) {
        if (!(e instanceof OAuthError)) throw e;
        return c.json({ error: e.error, error_description: e.description }, e.status);
      }
    },
    (result, c) => {
      if (!result.success) {
        return c.json({ error: "invalid_request", error_description: "Malformed form" }, 400);
      }
    },
  );
  app.openapi(certsRoute, (c) => {
    if (c.req.valid("param").realm !== d.realm) return c.json(NO_REALM, 404);
    return c.json(d.issuer.jwks(), 200);
  });
  app.openapi(discoveryRoute, (c) => {
    if (c.req.valid("param").realm !== d.realm) return c.json(NO_REALM, 404);
    return c.json(discovery(d.issuer), 200);
  });
  return app;
}

type TokenFormData = z.infer<typeof TokenForm>;

/** The token endpoint's flow in Keycloak's order: grant type, then client, then the grant itself. */
async function grant(
  form: TokenFormData,
  authorization: string | undefined,
  d: RealmDeps,
): Promise<TokenResponse> {
  if (!form.grant_type) throw new OAuthError(400, "invalid_request", "Missing form parameter: grant_type");
  if (form.grant_type !== "password" && form.grant_type !== "refresh_token") {
    throw new OAuthError(400, "unsupported_grant_type", "Unsupported grant_type");
  }
  const clientId = await authenticateClient(form, authorization, d.clients);
  return form.grant_type === "password"
    ? await passwordGrant(form, clientId, d)
    : await refreshGrant(form, clientId, d);
}

/** Checks the client's id and secret (form fields, or HTTP Basic as RFC 6749 §2.3.1 prefers). */
async function authenticateClient(
  form: TokenFormData,
  authorization: string | undefined,
  clients: SecretTable,
) {
  const [id, secret] = basicCredentials(authorization) ?? [form.client_id, form.client_secret];
  if (!id) throw new OAuthError(400, "invalid_request", "Missing parameter: client_id");
  if (secret === undefined) throw new OAuthError(400, "invalid_request", "Missing parameter: client_secret");
  if (!(await clients.check(id, secret))) {
    throw new OAuthError(401, "invalid_client", "Invalid client or Invalid client credentials");
  }
  return id;
}

/** `Authorization: Basic base64(urlencode(id):urlencode(secret))`, or undefined when absent or unreadable. */
function basicCredentials(header: string | undefined): [string, string] | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  try {
    const text = atob(m[1]);
    const i = text.indexOf(":");
    if (i < 0) return undefined;
    return [decodeURIComponent(text.slice(0, i)), decodeURIComponent(text.slice(i + 1))];
  } catch {
    return undefined;
  }
}

/** Resource-owner password grant: the user's name and password against TESSERA_USERS. */
async function passwordGrant(form: TokenFormData, clientId: string, d: RealmDeps): Promise<TokenResponse> {
  if (!form.username) throw new OAuthError(400, "invalid_request", "Missing parameter: username");
  if (form.password === undefined) {
    throw new OAuthError(400, "invalid_request", "Missing parameter: password");
  }
  if (!(await d.users.check(form.username, form.password))) {
    throw new OAuthError(401, "invalid_grant", "Invalid user credentials");
  }
  return await d.issuer.issue(form.username, clientId);
}

/** Refresh grant: a valid refresh token of this client, for a user who still exists, gets new tokens. */
async function refreshGrant(form: TokenFormData, clientId: string, d: RealmDeps): Promise<TokenResponse> {
  if (!form.refresh_token) throw new OAuthError(400, "invalid_request", "Missing parameter: refresh_token");
  let session;
  try {
    session = await d.issuer.verifyRefresh(form.refresh_token);
  } catch (e) {
    if (e instanceof AuthError) throw new OAuthError(400, "invalid_grant", "Invalid refresh token");
    throw e;
  }
  if (session.clientId !== clientId) {
    throw new OAuthError(
      400,
      "invalid_grant",
      "Invalid refresh token. Token client and authorized client don't match",
    );
  }
  if (!d.users.has(session.username)) throw new OAuthError(400, "invalid_grant", "User not found");
  return await d.issuer.issue(session.username, clientId, session.sessionId);
}

/** The discovery document: only what this issuer really offers (no authorization endpoint, no id_token). */
function discovery(issuer: LocalIssuer): Record<string, unknown> {
  const base = issuer.options.issuer;
  return {
    issuer: base,
    token_endpoint: `${base}/protocol/openid-connect/token`,
    jwks_uri: `${base}/protocol/openid-connect/certs`,
    grant_types_supported: ["password", "refresh_token"],
    token_endpoint_auth_methods_supported: ["client_secret_post", "client_secret_basic"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [issuer.alg],
    scopes_supported: SCOPE.split(" "),
    claims_supported: ["iss", "sub", "aud", "exp", "iat", "jti", "azp", "scope", "preferred_username"],
  };
}
