/** What the rest of Tessera knows of authentication: a verifier that turns a bearer token into a principal. */

/** Who is calling, from a verified token. */
export interface Principal {
  sub: string;
  username?: string;
  clientId?: string;
  scope?: string;
}

/** Verifies a bearer token; rejects with AuthError when it must not be accepted. */
export interface TokenVerifier {
  verify(token: string): Promise<Principal>;
}

/** A token that is missing, expired, tampered or otherwise not acceptable (401). */
export class AuthError extends Error {
  override name = "AuthError";
}
