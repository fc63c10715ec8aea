/** What the console's grants give, and why one failed: shared by the local issuer and the provider client. */

/** What a grant gave: the access token, and the refresh token when the issuer sent one; lifetimes in seconds. */
export interface Tokens {
  accessToken: string;
  expiresIn: number;
  refreshToken?: string;
  refreshExpiresIn?: number;
  /** The provider's ID token (AUTH_MODE=oidc), kept as the hint of its sign-out. */
  idToken?: string;
}

/**
 * Why a sign-in or a refresh failed, shown on the page: the issuer refused the credentials (or the refresh
 * token, or a code), too many failed passwords, the person declined at the provider ("denied"), a
 * callback that belongs to no sign-in started here ("invalid"), or the issuer cannot be asked.
 */
export class SignInError extends Error {
  override name = "SignInError";
  constructor(
    readonly reason: "refused" | "unavailable" | "throttled" | "denied" | "invalid",
    message: string,
  ) {
    super(message);
  }
}
