/**
 * Where the review console gets its tokens. AUTH_MODE=local: Tessera's own realm, in-process
 * (services/auth), whose password grant the console's own form uses (it is the provider there).
 * AUTH_MODE=oidc: the provider's code flow (oidc_flow.ts); no password reaches Tessera, and a session is
 * renewed with the provider's refresh grant (provider.ts).
 */
import type { Config } from "../../config.ts";
import { grantToken, OAuthError, type Realm } from "../auth/realm.ts";
import { providerRefresh } from "./provider.ts";
import { SignInError, type Tokens } from "./tokens.ts";

export { SignInError, type Tokens };

/** The configuration the console's sign-in reads. */
export type IssuerConfig = Pick<
  Config,
  | "AUTH_MODE"
  | "TESSERA_CLIENTS"
  | "CONSOLE_CLIENT_ID"
  | "CONSOLE_CLIENT_SECRET"
  | "OIDC_ISSUER"
  | "OIDC_AUDIENCE"
  | "OIDC_TOKEN_URL"
>;

export interface IssuerDeps {
  config: IssuerConfig;
  /** The local realm (AUTH_MODE=local). */
  realm?: Realm | null;
  /** How the provider is reached (AUTH_MODE=oidc); tests pass their own. */
  fetch?: typeof fetch;
}

const REFUSED = "Invalid username or password.";

/** The console's client of the local realm: CONSOLE_CLIENT_ID (default the first of TESSERA_CLIENTS) and its secret. */
function localClient(config: IssuerConfig): { id: string; secret: string } {
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

/**
 * The local realm's password grant for a person signing in with the console's own form (AUTH_MODE=local
 * only: with a provider, the password is typed at the provider); `clientAddress` (the browser's address)
 * is what the realm counts failed passwords by.
 */
export function passwordGrant(
  deps: IssuerDeps,
  username: string,
  password: string,
  clientAddress?: string,
): Promise<Tokens> {
  return localGrant(deps, { grant_type: "password", username, password }, REFUSED, clientAddress);
}

/** The refresh grant: new tokens for a session whose access token ran out. */
export function refreshGrant(deps: IssuerDeps, refreshToken: string): Promise<Tokens> {
  if (deps.config.AUTH_MODE === "oidc") return providerRefresh(deps, refreshToken);
  return localGrant(
    deps,
    { grant_type: "refresh_token", refresh_token: refreshToken },
    "The sign-in has ended.",
  );
}

async function localGrant(
  deps: IssuerDeps,
  form: Record<string, string>,
  refused: string,
  clientAddress?: string,
): Promise<Tokens> {
  if (deps.config.AUTH_MODE !== "local") {
    throw new SignInError("unavailable", "This server takes no password: sign in at the identity provider.");
  }
  if (!deps.realm) throw new SignInError("unavailable", "The local issuer is not set up on this server.");
  const client = localClient(deps.config);
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
