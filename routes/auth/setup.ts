/**
 * Picks the authentication mode from configuration: Tessera's own realm (local), an external OpenID
 * provider (oidc), or nothing at all (off, only when asked for by name).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";
import type { TokenVerifier } from "../../core/auth/types.ts";
import { LocalIssuer } from "../../core/auth/local_issuer.ts";
import { OidcVerifier } from "../../core/auth/oidc.ts";
import { SecretTable } from "../../core/auth/passwords.ts";
import { loadOrCreateSigningKey } from "../../services/auth/signing_key.ts";
import type { AppEnv } from "../http/env.ts";
import { realmRoutes } from "./realm.ts";

export interface AuthSetup {
  /** null only for AUTH_MODE=off. */
  verifier: TokenVerifier | null;
  /** Route groups to mount (the local realm's endpoints). */
  routes: OpenAPIHono<AppEnv>[];
}

/** The audience of locally issued access tokens when OIDC_AUDIENCE does not name one. */
export const LOCAL_AUDIENCE = "tessera";

/** Builds the verifier and routes of the configured mode; warns on stderr when the setup is open or shut. */
export async function setupAuth(config: Config, store: Store): Promise<AuthSetup> {
  if (config.AUTH_MODE === "off") {
    console.warn("WARNING: AUTH_MODE=off: every route answers without a token. Never expose this server.");
    return { verifier: null, routes: [] };
  }
  if (config.AUTH_MODE === "oidc") {
    const verifier = new OidcVerifier({
      jwksUrl: config.OIDC_JWKS_URL!,
      issuer: config.OIDC_ISSUER!,
      audience: config.OIDC_AUDIENCE!,
    });
    return { verifier, routes: [] };
  }
  return await setupLocal(config, store);
}

/** AUTH_MODE=local: the signing key from the store, the realm's endpoints, and the issuer as verifier. */
async function setupLocal(config: Config, store: Store): Promise<AuthSetup> {
  const realm = config.TESSERA_REALM;
  const key = await loadOrCreateSigningKey(store, config.TESSERA_DB);
  const issuer = await LocalIssuer.create(key, {
    issuer: `${config.publicUrl}/realms/${realm}`,
    audience: config.OIDC_AUDIENCE ?? LOCAL_AUDIENCE,
    realm,
    accessTtlSeconds: config.TOKEN_TTL_SECONDS,
    refreshTtlSeconds: config.REFRESH_TTL_SECONDS,
  });
  const users = new SecretTable(config.users);
  if (users.size === 0 && !config.dev) {
    console.warn(
      "WARNING: AUTH_MODE=local with no TESSERA_USERS: nobody can log in. Set TESSERA_USERS=name:password.",
    );
  }
  const clients = new SecretTable(config.TESSERA_CLIENTS);
  return { verifier: issuer, routes: [realmRoutes({ realm, issuer, users, clients })] };
}
