/**
 * Tessera's own realm (AUTH_MODE=local) as a Keycloak client sees it: the token grants in Keycloak's
 * order and wording (spec 3: password grant, form-encoded), and the discovery document.
 */
import { AuthError } from "../../core/auth/types.ts";
import { type LocalIssuer, SCOPE, type TokenResponse } from "../../core/auth/local_issuer.ts";
import type { SecretTable } from "../../core/auth/passwords.ts";
import type { Role } from "../../core/auth/roles.ts";
import type { LoginThrottle } from "./login_throttle.ts";

/** The realm: its name, the issuer of its tokens, the users and clients allowed to log in. */
export interface Realm {
  name: string;
  issuer: LocalIssuer;
  users: SecretTable;
  clients: SecretTable;
  /** The limit on failed password attempts (login_throttle.ts). */
  throttle: LoginThrottle;
  /** A user's role (TESSERA_USERS' third part; steward when it has none). */
  roleOf(username: string): Role;
}

/**
 * An OAuth 2.0 error answer (RFC 6749 §5.2) as Keycloak words it, with the status Keycloak gives it;
 * 429 (too many failed attempts) carries the seconds to wait.
 */
export class OAuthError extends Error {
  override name = "OAuthError";
  constructor(
    readonly status: 400 | 401 | 429,
    readonly error: string,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

/** A token request's fields, each as sent (the endpoint checks them itself, in Keycloak's order). */
export interface TokenRequest {
  grantType?: string;
  clientId?: string;
  clientSecret?: string;
  username?: string;
  password?: string;
  refreshToken?: string;
  /** The request's `Authorization` header: client credentials may come as HTTP Basic. */
  authorization?: string;
  /** Where the request came from (the connection's peer): failed passwords are counted per address. */
  clientAddress?: string;
}

/** The token endpoint's flow in Keycloak's order: grant type, then client, then the grant itself. */
export async function grantToken(realm: Realm, req: TokenRequest): Promise<TokenResponse> {
  if (!req.grantType) throw new OAuthError(400, "invalid_request", "Missing form parameter: grant_type");
  if (req.grantType !== "password" && req.grantType !== "refresh_token") {
    throw new OAuthError(400, "unsupported_grant_type", "Unsupported grant_type");
  }
  const clientId = await authenticateClient(req, realm.clients);
  return req.grantType === "password"
    ? await passwordGrant(req, clientId, realm)
    : await refreshGrant(req, clientId, realm);
}

/** Checks the client's id and secret (form fields, or HTTP Basic as RFC 6749 §2.3.1 prefers). */
async function authenticateClient(req: TokenRequest, clients: SecretTable) {
  const [id, secret] = basicCredentials(req.authorization) ?? [req.clientId, req.clientSecret];
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

/**
 * Resource-owner password grant: the user's name and password against TESSERA_USERS, refused unchecked
 * (429) after too many failures (login_throttle.ts); an unknown user is counted and answered the same.
 */
async function passwordGrant(req: TokenRequest, clientId: string, realm: Realm): Promise<TokenResponse> {
  if (!req.username) throw new OAuthError(400, "invalid_request", "Missing parameter: username");
  if (req.password === undefined) {
    throw new OAuthError(400, "invalid_request", "Missing parameter: password");
  }
  const address = req.clientAddress ?? "unknown";
  const wait = realm.throttle.check(req.username, address);
  if (wait > 0) {
    throw new OAuthError(
      429,
      "temporarily_unavailable",
      `Too many failed login attempts; try again in ${wait} s`,
      wait,
    );
  }
  if (!(await realm.users.check(req.username, req.password))) {
    realm.throttle.failed(req.username, address);
    throw new OAuthError(401, "invalid_grant", "Invalid user credentials");
  }
  realm.throttle.succeeded(req.username, address);
  return await realm.issuer.issue(req.username, clientId, realm.roleOf(req.username));
}

/** Refresh grant: a valid refresh token of this client, for a user who still exists, gets new tokens. */
async function refreshGrant(req: TokenRequest, clientId: string, realm: Realm): Promise<TokenResponse> {
  if (!req.refreshToken) throw new OAuthError(400, "invalid_request", "Missing parameter: refresh_token");
  let session;
  try {
    session = await realm.issuer.verifyRefresh(req.refreshToken);
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
  if (!realm.users.has(session.username)) throw new OAuthError(400, "invalid_grant", "User not found");
  // the role as configured now: a user whose role was lowered gets the lower one at the next refresh
  return await realm.issuer.issue(
    session.username,
    clientId,
    realm.roleOf(session.username),
    session.sessionId,
  );
}

/** The discovery document: only what this issuer really offers (no authorization endpoint, no id_token). */
export function discoveryDocument(issuer: LocalIssuer): Record<string, unknown> {
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
