/**
 * The review console's sessions, kept in Tessera's own database: one document per signed-in browser,
 * found by the SHA-256 of the secret its cookie holds (a copy of the database gives no live cookie).
 * A session lives as long as its access token, and is carried on by the refresh grant while the refresh
 * token lasts; with AUTH_MODE=off there is no token and a session ends after REFRESH_TTL_SECONDS unused.
 * Each session has its own CSRF token for the forms it renders.
 */
import type { Config } from "../../config.ts";
import type { CollectionRef, Doc, Store } from "../../store/store.ts";
import type { Principal, TokenVerifier } from "../../core/auth/types.ts";
import type { Role } from "../../core/auth/roles.ts";
import { AuthError } from "../../core/auth/types.ts";
import { type IssuerDeps, passwordGrant, refreshGrant, SignInError, type Tokens } from "./issuer.ts";

export interface SessionDeps extends IssuerDeps {
  store: Store;
  config: IssuerDeps["config"] & Pick<Config, "TESSERA_DB" | "REFRESH_TTL_SECONDS">;
  /** Checks the tokens the issuer gives, as the JSON API would; null with AUTH_MODE=off. */
  verifier: TokenVerifier | null;
  /** Milliseconds since the epoch; tests move it. */
  now?: () => number;
}

/** A live session as the pages see it. */
export interface ConsoleSession {
  /** The stored id (the hash of the cookie's secret). */
  id: string;
  username: string;
  sub: string;
  /** What the person may do: their token's role (AUTH_MODE=off: steward); null: nothing. */
  role: Role | null;
  /** The token every state-changing form of this session carries. */
  csrf: string;
  /** When the session ends unless refreshed (ms since the epoch). */
  expiresAt: number;
}

/** What a cookie leads to: nothing, a session that has ended (kept for its user and CSRF token), or a live one. */
export type SessionLookup =
  | { state: "none" }
  | { state: "expired"; session: ConsoleSession }
  | { state: "active"; session: ConsoleSession };

/** Refresh this long before the access token runs out, so a page never starts with a token about to die. */
const REFRESH_MARGIN_MS = 5_000;
/** A form kept across a sign-in is kept this long. */
const PENDING_TTL_MS = 60 * 60 * 1000;

const sessionsRef = (db: string): CollectionRef => ({ db, collection: "_console_sessions" });
const pendingRef = (db: string): CollectionRef => ({ db, collection: "_console_pending" });
const clock = (deps: SessionDeps) => (deps.now ?? Date.now)();

/** 32 random bytes, base64url. */
export function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The stored id of a cookie's secret. */
export async function hashId(secret: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Equality of two strings in time that does not depend on where they differ. */
export function sameToken(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

interface SessionDoc extends Doc {
  username: string;
  sub: string;
  /** Absent on a session from before roles: none until its next refresh. */
  role?: Role | null;
  csrf: string;
  /** When the access token (off: the idle time) runs out. */
  expires_at: number;
  refresh_token: string | null;
  /** When the refresh token runs out; null: the issuer did not say (try it). */
  refresh_expires_at: number | null;
  /** The provider's latest ID token (AUTH_MODE=oidc): the hint of its sign-out; null elsewhere. */
  id_token: string | null;
  created_at: string;
}

const shown = (d: SessionDoc): ConsoleSession => ({
  id: d._id,
  username: d.username,
  sub: d.sub,
  role: d.role ?? null,
  csrf: d.csrf,
  expiresAt: d.expires_at,
});

/** The fields a grant sets on a session document at `now`: who the token names, and the tokens' lifetimes. */
function grantFields(principal: Principal, tokens: Tokens, now: number) {
  return {
    sub: principal.sub,
    role: principal.role,
    expires_at: now + tokens.expiresIn * 1000,
    refresh_token: tokens.refreshToken ?? null,
    refresh_expires_at: tokens.refreshToken && tokens.refreshExpiresIn
      ? now + tokens.refreshExpiresIn * 1000
      : null,
    id_token: tokens.idToken ?? null,
  };
}

/**
 * Who an access token names and their role, checked as the JSON API checks it (an issuer whose tokens the
 * API refuses is refused here); AUTH_MODE=off: the name given, as a steward.
 */
async function principalOf(deps: SessionDeps, tokens: Tokens | null, username: string): Promise<Principal> {
  if (!deps.verifier || !tokens) return { sub: username, username, role: "steward" };
  try {
    return await deps.verifier.verify(tokens.accessToken);
  } catch (e) {
    if (!(e instanceof AuthError)) throw e;
    throw new SignInError("unavailable", `The issuer's token is not accepted by this server: ${e.message}`);
  }
}

/**
 * The one way from tokens to a session, for every way of signing in (the local form, the provider's code
 * flow, AUTH_MODE=off's name): verifies the access token with `deps.verifier`, stores the session, and
 * returns the cookie's secret. `username` unset: the token's `preferred_username`, else its subject.
 * `tokens` is null only with AUTH_MODE=off.
 */
export async function createSession(
  deps: SessionDeps,
  tokens: Tokens | null,
  username?: string,
): Promise<{ secret: string; session: ConsoleSession }> {
  const now = clock(deps);
  const principal = await principalOf(deps, tokens, username ?? "");
  const fields = tokens ? grantFields(principal, tokens, now) : {
    sub: principal.sub,
    role: principal.role,
    expires_at: now + deps.config.REFRESH_TTL_SECONDS * 1000,
    refresh_token: null,
    refresh_expires_at: null,
    id_token: null,
  };
  await sweep(deps, now);
  const secret = randomToken();
  const doc: SessionDoc = {
    _id: await hashId(secret),
    username: username ?? principal.username ?? principal.sub,
    csrf: randomToken(),
    ...fields,
    created_at: new Date(now).toISOString(),
  };
  await deps.store.put(sessionsRef(deps.config.TESSERA_DB), doc);
  return { secret, session: shown(doc) };
}

/**
 * Signs a person in with the console's own form: the local issuer's password grant (AUTH_MODE=off: any
 * name, no password), then a new session. A SignInError when the issuer refuses or fails; with a
 * provider (AUTH_MODE=oidc) no password is taken (oidc_flow.ts signs people in there).
 */
export async function signIn(
  deps: SessionDeps,
  input: { username: string; password: string; clientAddress?: string },
): Promise<{ secret: string; session: ConsoleSession }> {
  if (deps.config.AUTH_MODE === "off") return await createSession(deps, null, input.username);
  const tokens = await passwordGrant(deps, input.username, input.password, input.clientAddress);
  return await createSession(deps, tokens, input.username);
}

/**
 * The session a cookie's secret names. One whose access token has run out is refreshed when it can
 * be; one that cannot is deleted and answered as expired (with its user and CSRF token, so a form sent
 * just too late can be checked and kept for after the next sign-in).
 */
export async function findSession(deps: SessionDeps, secret: string): Promise<SessionLookup> {
  const ref = sessionsRef(deps.config.TESSERA_DB);
  const doc = (await deps.store.get(ref, await hashId(secret))) as SessionDoc | null;
  if (!doc) return { state: "none" };
  const now = clock(deps);
  // a session from before roles has none stored: AUTH_MODE=off's is a steward's; any other is renewed
  // now, so its role comes from a token rather than the person having none until the token runs out
  if (doc.role === undefined && deps.config.AUTH_MODE === "off") doc.role = "steward";
  const roleless = doc.role === undefined;
  if (now < doc.expires_at - REFRESH_MARGIN_MS && !roleless) {
    if (deps.config.AUTH_MODE === "off" && doc.expires_at - now < deps.config.REFRESH_TTL_SECONDS * 500) {
      // no token to refresh: the idle time starts again once half of it has gone
      const expires_at = now + deps.config.REFRESH_TTL_SECONDS * 1000;
      await deps.store.patch(ref, doc._id, { expires_at });
      return { state: "active", session: shown({ ...doc, expires_at }) };
    }
    return { state: "active", session: shown(doc) };
  }
  const refreshable = doc.refresh_token !== null &&
    (doc.refresh_expires_at === null || now < doc.refresh_expires_at);
  if (refreshable) {
    try {
      const tokens = await refreshGrant(deps, doc.refresh_token!);
      const fields = grantFields(await principalOf(deps, tokens, doc.username), tokens, now);
      // a provider that sends no new ID token on refresh: the one from the sign-in stays the hint
      if (fields.id_token === null) fields.id_token = doc.id_token ?? null;
      const updated = await deps.store.patch(ref, doc._id, fields);
      if (updated) return { state: "active", session: shown(updated as SessionDoc) };
    } catch (e) {
      if (!(e instanceof SignInError && e.reason === "refused")) throw e;
    }
  }
  await deps.store.delete(ref, doc._id);
  return { state: "expired", session: shown(doc) };
}

/**
 * Ends the session a cookie's secret names (nothing when there is none); returns its provider's ID token,
 * if any, for the sign-out at the provider.
 */
export async function signOut(deps: SessionDeps, secret: string): Promise<{ idToken: string | null }> {
  const ref = sessionsRef(deps.config.TESSERA_DB);
  const id = await hashId(secret);
  const doc = (await deps.store.get(ref, id)) as SessionDoc | null;
  await deps.store.delete(ref, id);
  return { idToken: doc?.id_token ?? null };
}

/** Deletes sessions whose refresh token (or, without one, access token) has run out, and stale kept forms. */
async function sweep(deps: SessionDeps, now: number): Promise<void> {
  const db = deps.config.TESSERA_DB;
  const ended = (await deps.store.list(sessionsRef(db)) as SessionDoc[]).filter((d) =>
    (d.refresh_token === null || (d.refresh_expires_at ?? Infinity) <= now) && d.expires_at <= now
  );
  if (ended.length) await deps.store.deleteMany(sessionsRef(db), ended.map((d) => d._id));
  const stale = (await deps.store.list(pendingRef(db))).filter((d) => (d.expires_at as number) <= now);
  if (stale.length) await deps.store.deleteMany(pendingRef(db), stale.map((d) => d._id));
}

/** A form whose session had ended when it was sent: kept for the same person's next sign-in. */
export interface PendingForm {
  /** The console path the form was sent to. */
  path: string;
  fields: Record<string, string>;
}

/** Keeps a form for `username`; returns the id the sign-in page carries along. */
export async function keepPendingForm(
  deps: SessionDeps,
  username: string,
  form: PendingForm,
): Promise<string> {
  const id = randomToken();
  await deps.store.put(pendingRef(deps.config.TESSERA_DB), {
    _id: id,
    username,
    path: form.path,
    // as a list: a form's field names are anyone's, and MongoDB refuses keys with dots or a leading $
    fields: Object.entries(form.fields).map(([name, value]) => ({ name, value })),
    expires_at: clock(deps) + PENDING_TTL_MS,
  });
  return id;
}

/** Takes a kept form back (once): null when unknown, ended, or kept for someone else. */
export async function takePendingForm(
  deps: SessionDeps,
  id: string,
  username: string,
): Promise<PendingForm | null> {
  const ref = pendingRef(deps.config.TESSERA_DB);
  const doc = await deps.store.get(ref, id);
  if (!doc || doc.username !== username) return null;
  await deps.store.delete(ref, id);
  if ((doc.expires_at as number) <= clock(deps)) return null;
  const list = doc.fields as { name: string; value: string }[];
  return { path: String(doc.path), fields: Object.fromEntries(list.map((f) => [f.name, f.value])) };
}
