/** What the rest of Tessera knows of authentication: a verifier that turns a bearer token into a principal. */

import type { Role } from "./roles.ts";

/** Who is calling, from a verified token. */
export interface Principal {
  sub: string;
  username?: string;
  clientId?: string;
  scope?: string;
  /** The highest of the three levels the token carries; null: none, so the caller may do nothing. */
  role: Role | null;
}

/** Verifies a bearer token; rejects with AuthError when it must not be accepted. */
export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}

/** A token that is missing, expired, tampered or otherwise not acceptable (401). */
export class AuthError extends Error {
  override name = "AuthError";
}
