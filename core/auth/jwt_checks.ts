/**
 * What the local issuer and the OIDC verifier share: the algorithms they accept, the one mapping from
 * jose's errors to a short AuthError reason, and the principal read from verified claims.
 */
import { errors, type JWTPayload } from "jose";
import { AuthError, type Principal } from "./types.ts";
import { type RoleClaims, roleFromClaims } from "./roles.ts";

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

/** A claim's expected value and what sets it (a configuration variable), for a 401 that names both. */
export interface ExpectedClaim {
  value: string;
  from: string;
}

/** What a verifier expects of `iss` and `aud`, named in the refusal of a token that carries another. */
export interface ExpectedClaims {
  iss: ExpectedClaim;
  aud: ExpectedClaim;
}

/**
 * Maps a jose failure to an AuthError the caller may see; rethrows what is not the token's fault. With
 * `expected`, an issuer or audience mismatch names the token's value and the expected one.
 */
export function toAuthError(e: unknown, expected?: ExpectedClaims): AuthError {
  if (e instanceof AuthError) return e;
  if (e instanceof errors.JWTExpired) return new AuthError("token expired");
  if (e instanceof errors.JWTClaimValidationFailed) return new AuthError(claimReason(e, expected));
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

/**
 * A short reason for a failed claim check. An issuer or audience mismatch echoes that one claim (jose
 * checks claims only after the signature, so it is what a trusted key signed) and the expected value;
 * no other claim's value is echoed.
 */
function claimReason(
  e: InstanceType<typeof errors.JWTClaimValidationFailed>,
  expected?: ExpectedClaims,
): string {
  if (e.claim === "iss" || e.claim === "aud") {
    const what = e.claim === "iss" ? "issuer" : "audience";
    const want = expected?.[e.claim];
    if (!want) return `unexpected ${what}`;
    const carried = e.payload[e.claim];
    const its = carried === undefined ? `it has no ${what}` : `its ${what} is ${quoted(carried)}`;
    return `${its}, Tessera expects ${quoted(want.value)} (${want.from})`;
  }
  if (e.claim === "nbf") return "token not yet valid";
  if (e.reason === "missing") return `missing claim ${e.claim}`;
  return `invalid claim ${e.claim}`;
}

/** A claim's value as JSON, cut at 200 characters so a huge claim does not fill the answer. */
function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** Rejects a token whose `typ` claim says it is not an access token (Keycloak's refresh and ID tokens). */
export function requireAccessTyp(payload: JWTPayload): void {
  const typ = payload.typ;
  if (typ !== undefined && String(typ).toLowerCase() !== "bearer") {
    throw new AuthError("not an access token");
  }
}

/** The caller as the rest of Tessera sees it, from verified access-token claims. */
export function principalFrom(payload: JWTPayload, roles: RoleClaims): Principal {
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  return {
    sub: payload.sub!,
    username: str(payload.preferred_username),
    clientId: str(payload.azp) ?? str(payload.client_id),
    scope: str(payload.scope),
    role: roleFromClaims(payload, roles),
  };
}
