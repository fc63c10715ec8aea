/**
 * Where the review console gets its tokens: the configured issuer's password and refresh grants, asked by
 * the server on the person's behalf. AUTH_MODE=local: Tessera's own realm, in-process (services/auth);
 * AUTH_MODE=oidc: the provider's token endpoint (OIDC_TOKEN_URL, or the one its discovery document names).
 */
import type { Config } from "../../config.ts";
import { grantToken, OAuthError, type Realm } from "../auth/realm.ts";

/** The configuration the console's sign-in reads. */
export type IssuerConfig = Pick<
  Config,
  | "AUTH_MODE"
  | "TESSERA_CLIENTS"
  | "CONSOLE_CLIENT_ID"
  | "CONSOLE_CLIENT_SECRET"
  | "OIDC_ISSUER"
  | "OIDC_TOKEN_URL"
>;

export interface IssuerDeps {
  config: IssuerConfig;
  /** The local realm (AUTH_MODE=local). */
  realm?: Realm | null;
  /** How the provider is reached (AUTH_MODE=oidc); tests pass their own. */
  fetch?: typeof fetch;
}

/** What a grant gave: the access token, and the refresh token when the issuer sent one; lifetimes in seconds. */
export interface Tokens {
  accessToken: string;
  expiresIn: number;
  refreshToken?: string;
  refreshExpiresIn?: number;
}

/**
 * Why a sign-in or a refresh failed: the issuer refused the credentials (or the refresh token), or it
 * cannot be asked (unreachable, misconfigured); the message is shown on the page.
 */
export class SignInError extends Error {
  override name = "SignInError";
  constructor(readonly reason: "refused" | "unavailable" | "throttled", message: string) {
    super(message);
  }
}

const REFUSED = "Invalid username or password.";

/** The console's client id and secret: CONSOLE_CLIENT_ID (local: its secret from TESSERA_CLIENTS, default the first). */
function consoleClient(config: IssuerConfig): { id: string; secret?: string } {
  if (config.AUTH_MODE === "local") {
    const id = config.CONSOLE_CLIENT_ID ?? [...config.TESSERA_CLIENTS.keys()][0];
    const secret = id === undefined ? undefined : config.TESSERA_CLIENTS.get(id);
    if (id === undefined || secret === undefined) {
      throw new SignInError(
        "unavailable",
        "The console has no client of the local issuer: set TESSERA_CLIENTS (and CONSOLE_CLIENT_ID).",
      );
    }
    return { id, secret };
  }
  if (!config.CONSOLE_CLIENT_ID) {
    throw new SignInError(
      "unavailable",
      "The console cannot sign in: set CONSOLE_CLIENT_ID for the provider.",
    );
  }
  return { id: config.CONSOLE_CLIENT_ID, secret: config.CONSOLE_CLIENT_SECRET };
}

/**
 * The resource-owner password grant for a person signing in; `clientAddress` (the browser's address) is
 * what the local realm counts failed passwords by.
 */
export function passwordGrant(
  deps: IssuerDeps,
  username: string,
  password: string,
  clientAddress?: string,
): Promise<Tokens> {
  return grant(deps, { grant_type: "password", username, password }, REFUSED, clientAddress);
}

/** The refresh grant: new tokens for a session whose access token ran out. */
export function refreshGrant(deps: IssuerDeps, refreshToken: string): Promise<Tokens> {
  return grant(deps, { grant_type: "refresh_token", refresh_token: refreshToken }, "The sign-in has ended.");
}

async function grant(
  deps: IssuerDeps,
  form: Record<string, string>,
  refused: string,
  clientAddress?: string,
): Promise<Tokens> {
  const client = consoleClient(deps.config);
  if (deps.config.AUTH_MODE === "local") {
    if (!deps.realm) throw new SignInError("unavailable", "The local issuer is not set up on this server.");
    try {
      const t = await grantToken(deps.realm, {
        grantType: form.grant_type,
        clientId: client.id,
        clientSecret: client.secret,
        username: form.username,
        password: form.password,
        refreshToken: form.refresh_token,
        clientAddress,
      });
      return {
        accessToken: t.access_token,
        expiresIn: t.expires_in,
        refreshToken: t.refresh_token,
        refreshExpiresIn: t.refresh_expires_in,
      };
    } catch (e) {
      if (!(e instanceof OAuthError)) throw e;
      if (e.error === "invalid_grant") throw new SignInError("refused", refused);
      if (e.status === 429) {
        throw new SignInError("throttled", `Too many failed sign-ins; try again in ${e.retryAfter} seconds.`);
      }
      throw new SignInError("unavailable", `The local issuer refused the console's client: ${e.description}`);
    }
  }
  if (deps.config.AUTH_MODE === "oidc") return await providerGrant(deps, client, form, refused);
  throw new SignInError("unavailable", "No issuer is configured (AUTH_MODE=off).");
}

/** Token endpoints found by discovery, per issuer, for the life of the process. */
const discovered = new Map<string, string>();

/** OIDC_TOKEN_URL, or the `token_endpoint` of the issuer's discovery document. */
async function tokenUrl(deps: IssuerDeps): Promise<string> {
  const { OIDC_TOKEN_URL, OIDC_ISSUER } = deps.config;
  if (OIDC_TOKEN_URL) return OIDC_TOKEN_URL;
  if (!OIDC_ISSUER) throw new SignInError("unavailable", "OIDC_ISSUER is not set.");
  const known = discovered.get(OIDC_ISSUER);
  if (known) return known;
  const url = `${OIDC_ISSUER.replace(/\/$/, "")}/.well-known/openid-configuration`;
  const res = await (deps.fetch ?? fetch)(url, { signal: AbortSignal.timeout(10_000) });
  const doc = res.ok ? await res.json().catch(() => null) : null;
  if (typeof doc?.token_endpoint !== "string") {
    throw new SignInError(
      "unavailable",
      "The identity provider's discovery document names no token endpoint.",
    );
  }
  discovered.set(OIDC_ISSUER, doc.token_endpoint);
  return doc.token_endpoint;
}

/** One form POST to the provider's token endpoint (RFC 6749 §4.3, §6). */
async function providerGrant(
  deps: IssuerDeps,
  client: { id: string; secret?: string },
  form: Record<string, string>,
  refused: string,
): Promise<Tokens> {
  let res: Response;
  try {
    const body = new URLSearchParams({ ...form, client_id: client.id, scope: "openid" });
    if (client.secret !== undefined) body.set("client_secret", client.secret);
    res = await (deps.fetch ?? fetch)(await tokenUrl(deps), {
      method: "POST",
      body,
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(10_000),
    });
  } catch (e) {
    if (e instanceof SignInError) throw e;
    throw new SignInError("unavailable", "The identity provider cannot be reached; try again shortly.");
  }
  const answer = await res.json().catch(() => null) as Record<string, unknown> | null;
  if (!res.ok) {
    if (answer?.error === "invalid_grant") throw new SignInError("refused", refused);
    const why = typeof answer?.error === "string" ? ` (${answer.error})` : ` (status ${res.status})`;
    throw new SignInError("unavailable", `The identity provider refused the console's request${why}.`);
  }
  if (typeof answer?.access_token !== "string") {
    throw new SignInError("unavailable", "The identity provider's answer holds no access token.");
  }
  const num = (v: unknown) => (typeof v === "number" && v > 0 ? v : undefined);
  return {
    accessToken: answer.access_token,
    expiresIn: num(answer.expires_in) ?? 60,
    refreshToken: typeof answer.refresh_token === "string" ? answer.refresh_token : undefined,
    refreshExpiresIn: num(answer.refresh_expires_in),
  };
}
