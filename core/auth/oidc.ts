/**
 * AUTH_MODE=oidc: verifies access tokens of an external OpenID provider (Keycloak, Auth0, Entra...)
 * against its JWKS, with issuer, audience and asymmetric algorithms pinned.
 */
import { createRemoteJWKSet, jwtVerify } from "jose";
import type { Principal, TokenVerifier } from "./types.ts";
import type { RoleClaims } from "./roles.ts";
import {
  ASYMMETRIC_ALGS,
  CLOCK_TOLERANCE_S,
  principalFrom,
  requireAccessTyp,
  toAuthError,
} from "./jwt_checks.ts";

export interface OidcOptions {
  jwksUrl: string;
  issuer: string;
  audience: string;
  /** What sets the issuer and the audience (their variables), named in a mismatch's 401. */
  issuerFrom?: string;
  audienceFrom?: string;
  /** Milliseconds to wait for the JWKS before giving up (jose's default is 5000). */
  timeoutMs?: number;
  /** Where the caller's role is read (default: the audience's client roles and the realm's roles). */
  roles?: RoleClaims;
}

/**
 * After a fetch of the JWKS, a token naming a key it lacks makes jose fetch again only this much later: short,
 * so a provider's new key is taken within seconds of a rotation (jose's 30 s default refused its tokens that
 * long), long enough that tokens with made-up key ids cannot make Tessera hammer the provider.
 */
export const JWKS_COOLDOWN_MS = 5_000;

export class OidcVerifier implements TokenVerifier {
  /** jose caches the key set and refetches it when a token names an unknown `kid` (key rotation). */
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;

  constructor(private readonly options: OidcOptions) {
    this.jwks = createRemoteJWKSet(new URL(options.jwksUrl), {
      timeoutDuration: options.timeoutMs ?? 5000,
      cooldownDuration: JWKS_COOLDOWN_MS,
    });
  }

  /** Verifies signature, issuer, audience, expiry, and that the token is an access token. */
  async verify(token: string): Promise<Principal> {
    try {
      const { payload } = await jwtVerify(token, this.jwks, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: [...ASYMMETRIC_ALGS],
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ["exp", "sub"],
      });
      requireAccessTyp(payload);
      return principalFrom(payload, this.options.roles ?? { clientId: this.options.audience });
    } catch (e) {
      const { issuer, audience, issuerFrom, audienceFrom } = this.options;
      throw toAuthError(e, {
        iss: { value: issuer, from: issuerFrom ?? "OIDC_ISSUER" },
        aud: { value: audience, from: audienceFrom ?? "OIDC_AUDIENCE" },
      });
    }
  }
}
