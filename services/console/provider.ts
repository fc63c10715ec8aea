/**
 * The review console as a client of the OpenID provider (AUTH_MODE=oidc), through `oauth4webapi` so no
 * protocol check is written by hand: the provider's metadata from its discovery document (kept for the
 * life of the process), the console's client and its authentication, the code and refresh grants, and
 * the address of the provider's sign-out. Every failure becomes a SignInError the pages can show.
 */
import * as oauth from "oauth4webapi";
import type { Config } from "../../config.ts";
import { SignInError, type Tokens } from "./tokens.ts";

/** The configuration the console's provider client reads. */
export type ProviderConfig = Pick<
  Config,
  "OIDC_ISSUER" | "OIDC_AUDIENCE" | "OIDC_TOKEN_URL" | "CONSOLE_CLIENT_ID" | "CONSOLE_CLIENT_SECRET"
>;

export interface ProviderDeps {
  config: ProviderConfig;
  /** How the provider is reached; tests pass their own. */
  fetch?: typeof fetch;
}

/** What every call to the provider needs: its metadata, the console's client and how it authenticates. */
export interface Provider {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  auth: oauth.ClientAuth;
  /** A timeout, the test's fetch, and plain http where the operator configured it. */
  options: RequestOptions;
}

interface RequestOptions {
  signal: () => AbortSignal;
  [oauth.allowInsecureRequests]?: boolean;
  [oauth.customFetch]?: (url: string, init: RequestInit) => Promise<Response>;
}

/** How long one request to the provider may take. */
const TIMEOUT_MS = 10_000;

/** Discovery documents already read, per issuer (a failed read is not kept, so the next sign-in tries again). */
const discovered = new Map<string, Promise<oauth.AuthorizationServer>>();

/** The console's client id: CONSOLE_CLIENT_ID, else the audience of the API's tokens (the same client). */
export function consoleClientId(config: ProviderConfig): string | undefined {
  return config.CONSOLE_CLIENT_ID ?? config.OIDC_AUDIENCE;
}

/** The request options: a timeout, the test's fetch, and plain http only where the operator configured it. */
function requestOptions(deps: ProviderDeps): RequestOptions {
  const { OIDC_ISSUER, OIDC_TOKEN_URL } = deps.config;
  const insecure = [OIDC_ISSUER, OIDC_TOKEN_URL].some((u) => u?.startsWith("http:"));
  const custom = deps.fetch;
  return {
    signal: () => AbortSignal.timeout(TIMEOUT_MS),
    ...(insecure ? { [oauth.allowInsecureRequests]: true } : {}),
    ...(custom ? { [oauth.customFetch]: (url: string, init: RequestInit) => custom(url, init) } : {}),
  };
}

/** The provider's metadata from OIDC_ISSUER's discovery document, read once per issuer. */
async function metadata(deps: ProviderDeps): Promise<oauth.AuthorizationServer> {
  const issuer = deps.config.OIDC_ISSUER;
  if (!issuer) throw new SignInError("unavailable", "OIDC_ISSUER is not set.");
  let found = discovered.get(issuer);
  if (!found) {
    const url = new URL(issuer);
    found = oauth.discoveryRequest(url, { ...requestOptions(deps), algorithm: "oidc" })
      .then((res) => oauth.processDiscoveryResponse(url, res));
    discovered.set(issuer, found);
    found.catch(() => discovered.delete(issuer));
  }
  try {
    return await found;
  } catch (e) {
    const why = e instanceof oauth.OperationProcessingError ? ` (${e.message})` : "";
    throw new SignInError(
      "unavailable",
      `The identity provider's discovery document at ${issuer} could not be read${why}; try again shortly.`,
    );
  }
}

/** The provider, the console's client and its authentication (a secret when CONSOLE_CLIENT_SECRET is set). */
export async function provider(deps: ProviderDeps): Promise<Provider> {
  const id = consoleClientId(deps.config);
  if (!id) throw new SignInError("unavailable", "The console cannot sign in: set CONSOLE_CLIENT_ID.");
  const found = await metadata(deps);
  const as = deps.config.OIDC_TOKEN_URL ? { ...found, token_endpoint: deps.config.OIDC_TOKEN_URL } : found;
  const secret = deps.config.CONSOLE_CLIENT_SECRET;
  const methods = as.token_endpoint_auth_methods_supported;
  const auth = secret === undefined
    ? oauth.None()
    : !methods || methods.includes("client_secret_basic")
    ? oauth.ClientSecretBasic(secret)
    : oauth.ClientSecretPost(secret);
  return { as, client: { client_id: id }, auth, options: requestOptions(deps) };
}

/** The tokens of a grant's answer, in the console's terms. */
export function tokensOf(answer: oauth.TokenEndpointResponse): Tokens {
  const num = (v: unknown) => (typeof v === "number" && v > 0 ? v : undefined);
  return {
    accessToken: answer.access_token,
    expiresIn: num(answer.expires_in) ?? 60,
    refreshToken: answer.refresh_token,
    refreshExpiresIn: num(answer.refresh_expires_in), // Keycloak's; other providers do not say
    idToken: answer.id_token,
  };
}

/** The refresh grant at the provider: new tokens (and a new ID token when the provider sends one). */
export async function providerRefresh(deps: ProviderDeps, refreshToken: string): Promise<Tokens> {
  const p = await provider(deps);
  try {
    const res = await oauth.refreshTokenGrantRequest(p.as, p.client, p.auth, refreshToken, p.options);
    return tokensOf(await oauth.processRefreshTokenResponse(p.as, p.client, res));
  } catch (e) {
    throw providerError(e, "The identity provider refused to renew the session", "refused");
  }
}

/**
 * A provider failure as a SignInError. `invalid_grant` (a code or refresh token it no longer takes) and an
 * answer that fails the library's checks (an ID token whose nonce, issuer or audience does not match) are
 * `refused`: the person signs in again. A client it refuses, or no answer, is "unavailable".
 */
export function providerError(e: unknown, what: string, refused: SignInError["reason"]): SignInError {
  if (e instanceof SignInError) return e;
  if (e instanceof oauth.ResponseBodyError) {
    if (e.error === "invalid_grant") return new SignInError(refused, `${what}: sign in again.`);
    return new SignInError("unavailable", `${what} (${e.error}); the console's client may be misconfigured.`);
  }
  if (e instanceof oauth.WWWAuthenticateChallengeError) {
    return new SignInError("unavailable", `${what}: it refused the console's client.`);
  }
  if (e instanceof oauth.OperationProcessingError) {
    return new SignInError(refused, `${what}: its answer did not pass the checks (${e.message}).`);
  }
  return new SignInError(
    "unavailable",
    `${what}: the identity provider cannot be reached; try again shortly.`,
  );
}
