/**
 * Picks the authentication mode from configuration: Tessera's own realm (local), an external OpenID
 * provider (oidc), or nothing at all (off, only when asked for by name).
 */
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";
import type { TokenVerifier } from "../../core/auth/types.ts";
import { LocalIssuer } from "../../core/auth/local_issuer.ts";
import { OidcVerifier } from "../../core/auth/oidc.ts";
import { SecretTable } from "../../core/auth/passwords.ts";
import { loadOrCreateSigningKey } from "./signing_key.ts";
import { LoginThrottle } from "./login_throttle.ts";
import type { Realm } from "./realm.ts";

export interface Auth {
  /** null only for AUTH_MODE=off. */
  verifier: TokenVerifier | null;
  /** The local realm whose endpoints to mount (AUTH_MODE=local), else null. */
  realm: Realm | null;
}

/** The audience of locally issued access tokens when OIDC_AUDIENCE does not name one. */
export const LOCAL_AUDIENCE = "tessera";

/** Builds the verifier (and realm) of the configured mode; warns on stderr when the setup is open or shut. */
export async function configureAuth({ config, store }: { config: Config; store: Store }): Promise<Auth> {
  if (config.AUTH_MODE === "off") {
    console.warn(
      "WARNING: AUTH_MODE=off: every route answers without a token, and everyone is a steward. " +
        "Never expose this server.",
    );
    return { verifier: null, realm: null };
  }
  if (config.AUTH_MODE === "oidc") {
    const verifier = new OidcVerifier({
      jwksUrl: config.OIDC_JWKS_URL!,
      issuer: config.OIDC_ISSUER!,
      audience: config.OIDC_AUDIENCE!,
      roles: {
        clientId: config.OIDC_CLIENT_ID ?? config.OIDC_AUDIENCE!,
        claim: config.OIDC_ROLES_CLAIM,
        names: config.ROLE_NAMES,
        fallback: config.OIDC_DEFAULT_ROLE,
      },
    });
    return { verifier, realm: null };
  }
  const realm = await localRealm(config, store);
  return { verifier: realm.issuer, realm };
}

/** AUTH_MODE=local: the signing key from the store, the issuer, and who may log in. */
async function localRealm(config: Config, store: Store): Promise<Realm> {
  const name = config.TESSERA_REALM;
  const key = await loadOrCreateSigningKey(store, config.TESSERA_DB);
  const issuer = await LocalIssuer.create(key, {
    issuer: `${config.publicUrl}/realms/${name}`,
    audience: config.OIDC_AUDIENCE ?? LOCAL_AUDIENCE,
    realm: name,
    accessTtlSeconds: config.TOKEN_TTL_SECONDS,
    refreshTtlSeconds: config.REFRESH_TTL_SECONDS,
  });
  const users = new SecretTable(new Map([...config.users].map(([name, u]) => [name, u.password])));
  if (users.size === 0 && !config.dev) {
    console.warn(
      "WARNING: AUTH_MODE=local with no TESSERA_USERS: nobody can log in. Set TESSERA_USERS=name:password[:role].",
    );
  }
  return {
    name,
    issuer,
    users,
    clients: new SecretTable(config.TESSERA_CLIENTS),
    throttle: new LoginThrottle(),
    roleOf: (username) => config.users.get(username)?.role ?? "steward",
  };
}
