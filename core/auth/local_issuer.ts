/**
 * Tessera as its own OpenID issuer (AUTH_MODE=local): signs Keycloak-shaped access and refresh tokens
 * with one asymmetric key and verifies them. Given the key; it never touches the store or the environment.
 */
import { importJWK, type JWK, type JWTPayload, jwtVerify, SignJWT } from "jose";
import { AuthError, type Principal, type TokenVerifier } from "./types.ts";
import { CLOCK_TOLERANCE_S, type ExpectedClaim, principalFrom, toAuthError } from "./jwt_checks.ts";
import type { Role } from "./roles.ts";

/** The signing key as kept in the store: a private JWK, its key id and algorithm. */
export interface SigningKey {
  kid: string;
  alg: "ES256" | "RS256";
  privateJwk: JWK;
}

export interface LocalIssuerOptions {
  /** `${publicUrl}/realms/${realm}`: the `iss` of every token, and the `aud` of refresh tokens. */
  issuer: string;
  /** The `aud` of access tokens. */
  audience: string;
  /** What sets the issuer and the audience (their variables), named in a mismatch's 401. */
  issuerFrom?: string;
  audienceFrom?: string;
  realm: string;
  accessTtlSeconds: number;
  refreshTtlSeconds: number;
}

/** What the token endpoint answers, in Keycloak's field names. */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token: string;
  token_type: "Bearer";
  "not-before-policy": 0;
  session_state: string;
  scope: string;
}

/** Who a refresh token was issued to, once verified. */
export interface RefreshGrant {
  username: string;
  clientId: string;
  sessionId: string;
}

export const SCOPE = "openid profile email";

/** Private members of RSA, EC and OKP JWKs, dropped to publish the public half. */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

export class LocalIssuer implements TokenVerifier {
  private constructor(
    private readonly key: SigningKey,
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
    private readonly publicJwk: JWK,
    readonly options: LocalIssuerOptions,
  ) {}

  /** Imports the key once, so signing and verifying never parse a JWK per request. */
  static async create(key: SigningKey, options: LocalIssuerOptions): Promise<LocalIssuer> {
    const publicJwk = publicPart(key);
    const privateKey = await importJWK(key.privateJwk, key.alg) as CryptoKey;
    const publicKey = await importJWK(publicJwk, key.alg) as CryptoKey;
    return new LocalIssuer(key, privateKey, publicKey, publicJwk, options);
  }

  /** The JWKS document: the public key only. */
  jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }

  /** The one signing algorithm, for the discovery document. */
  get alg(): string {
    return this.key.alg;
  }

  /**
   * Issues an access and a refresh token for a user who has just proved who they are; the access token
   * carries the user's role as Keycloak carries a client role (`resource_access.<audience>.roles`).
   */
  async issue(
    username: string,
    clientId: string,
    role: Role,
    sessionId: string = crypto.randomUUID(),
  ): Promise<TokenResponse> {
    const { accessTtlSeconds: ttl, refreshTtlSeconds: refreshTtl, issuer, audience } = this.options;
    const sub = await subjectFor(this.options.realm, username);
    const common = { sub, azp: clientId, sid: sessionId, scope: SCOPE, preferred_username: username };
    const roles = { resource_access: { [audience]: { roles: [role] } } };
    const access_token = await this.sign({ ...common, ...roles, typ: "Bearer" }, audience, ttl);
    const refresh_token = await this.sign({ ...common, typ: "Refresh" }, issuer, refreshTtl);
    return {
      access_token,
      expires_in: ttl,
      refresh_expires_in: refreshTtl,
      refresh_token,
      token_type: "Bearer",
      "not-before-policy": 0,
      session_state: sessionId,
      scope: SCOPE,
    };
  }

  /** Verifies an access token: our algorithm, issuer, audience, expiry and `typ: Bearer`. */
  async verify(token: string): Promise<Principal> {
    const { audience, audienceFrom } = this.options;
    const payload = await this.check(
      token,
      { value: audience, from: audienceFrom ?? "OIDC_AUDIENCE" },
      "Bearer",
    );
    return principalFrom(payload, { clientId: audience });
  }

  /** Verifies a refresh token: as an access token, but `aud` is the issuer and `typ` is Refresh. */
  async verifyRefresh(token: string): Promise<RefreshGrant> {
    const p = await this.check(token, {
      value: this.options.issuer,
      from: "a refresh token's audience is its issuer",
    }, "Refresh");
    if (typeof p.preferred_username !== "string" || typeof p.azp !== "string" || typeof p.sid !== "string") {
      throw new AuthError("malformed refresh token");
    }
    return { username: p.preferred_username, clientId: p.azp, sessionId: p.sid };
  }

  /** Signs one token with a fresh id, now as `iat` and now + ttl as `exp`. */
  private async sign(claims: JWTPayload, audience: string, ttl: number): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return await new SignJWT(claims)
      .setProtectedHeader({ alg: this.key.alg, typ: "JWT", kid: this.key.kid })
      .setIssuer(this.options.issuer)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + ttl)
      .setJti(crypto.randomUUID())
      .sign(this.privateKey);
  }

  /** The shared checks; the algorithm is pinned to our key's so `none` and HS256 never get a say. */
  private async check(token: string, aud: ExpectedClaim, typ: string): Promise<JWTPayload> {
    const { issuer, issuerFrom } = this.options;
    try {
      const { payload } = await jwtVerify(token, this.publicKey, {
        issuer,
        audience: aud.value,
        algorithms: [this.key.alg],
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ["exp", "iat", "sub"],
      });
      if (payload.typ !== typ) {
        throw new AuthError(typ === "Bearer" ? "not an access token" : "not a refresh token");
      }
      return payload;
    } catch (e) {
      throw toAuthError(e, {
        iss: { value: issuer, from: issuerFrom ?? "PUBLIC_URL and TESSERA_REALM" },
        aud,
      });
    }
  }
}

/** The public half of the signing key, labelled as the JWKS needs it. */
function publicPart(key: SigningKey): JWK {
  const jwk: JWK = { ...key.privateJwk };
  for (const m of PRIVATE_MEMBERS) delete (jwk as Record<string, unknown>)[m];
  return { ...jwk, kid: key.kid, alg: key.alg, use: "sig" };
}

/** Namespace of Tessera's user ids (a fixed random UUID; changing it would change every `sub`). */
const SUBJECT_NAMESPACE = "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b";

/** A user's `sub`: stable across restarts and keys, distinct per realm, and not the bare user name. */
export function subjectFor(realm: string, username: string): Promise<string> {
  return uuidV5(SUBJECT_NAMESPACE, `${realm}/${username}`);
}

/** RFC 9562 name-based UUID (version 5, SHA-1), as Python's `uuid.uuid5`. */
export async function uuidV5(namespace: string, name: string): Promise<string> {
  const ns = Uint8Array.from(namespace.replace(/-/g, "").match(/../g)!.map((h) => parseInt(h, 16)));
  const data = new Uint8Array([...ns, ...new TextEncoder().encode(name)]);
  const b = new Uint8Array(await crypto.subtle.digest("SHA-1", data)).slice(0, 16);
  b[6] = (b[6] & 0x0f) | 0x50;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
