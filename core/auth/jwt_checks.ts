/**
 * What the local issuer and the OIDC verifier share: the algorithms they accept, the one mapping from
 * jose's errors to a short AuthError reason, and the principal read from verified claims.
 */
import { errors, type JWTPayload } from "jose";
import { AuthError, type Principal } from "./types.ts";

/**
 * Asymmetric algorithms only: a symmetric one would let anyone who holds the public key (everyone) sign,
 * and `none` signs nothing.
 */
export const ASYMMETRIC_ALGS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;

/** Seconds of clock skew tolerated between the token's issuer and this machine. */
export const CLOCK_TOLERANCE_S = 5;

/** Maps a jose failure to an AuthError the caller may see; rethrows what is not the token's fault. */
export function toAuthError(e: unknown): AuthError {
  if (e instanceof AuthError) return e;
  if (e instanceof errors.JWTExpired) return new AuthError("token expired");
  if (e instanceof errors.JWTClaimValidationFailed) return new AuthError(claimReason(e));
  if (e instanceof errors.JOSEAlgNotAllowed || e instanceof errors.JOSENotSupported) {
    return new AuthError("signing algorithm not allowed");
  }
  if (e instanceof errors.JWSSignatureVerificationFailed) return new AuthError("invalid signature");
  if (e instanceof errors.JWKSNoMatchingKey) return new AuthError("unknown signing key");
  if (e instanceof errors.JWSInvalid || e instanceof errors.JWTInvalid) {
    return new AuthError("malformed token");
  }
  throw e;
}

/** A short reason for a failed claim check, naming the claim but not echoing its value. */
function claimReason(e: InstanceType<typeof errors.JWTClaimValidationFailed>): string {
  if (e.claim === "iss") return "unexpected issuer";
  if (e.claim === "aud") return "unexpected audience";
  if (e.claim === "nbf") return "token not yet valid";
  if (e.reason === "missing") return `missing claim ${e.claim}`;
  return `invalid claim ${e.claim}`;
}

/** Rejects a token whose `typ` claim says it is not an access token (Keycloak's refresh and ID tokens). */
export function requireAccessTyp(payload: JWTPayload): void {
  const typ = payload.typ;
  if (typ !== undefined && String(typ).toLowerCase() !== "bearer") {
    throw new AuthError("not an access token");
  }
}

/** The caller as the rest of Tessera sees it, from verified access-token claims. */
export function principalFrom(payload: JWTPayload): Principal {
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  return {
    sub: payload.sub!,
    username: str(payload.preferred_username),
    clientId: str(payload.azp) ?? str(payload.client_id),
    scope: str(payload.scope),
  };
}
