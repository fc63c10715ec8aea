/**
 * Console sign-in at the provider (AUTH_MODE=oidc): the authorization code flow with PKCE (S256), `state`
 * and `nonce`, checked by `oauth4webapi`, so no password of the provider's users ever reaches Tessera.
 * A started sign-in is kept server-side (its verifier, state, nonce, and where the person was going),
 * found by the SHA-256 of a short-lived cookie's secret and taken once; sign-out ends the provider's
 * session too (RP-initiated logout).
 */
import * as oauth from "oauth4webapi";
import type { Config } from "../../config.ts";
import type { CollectionRef, Doc } from "../../store/store.ts";
import { createSession, hashId, randomToken, type SessionDeps } from "./sessions.ts";
import { provider, providerError, tokensOf } from "./provider.ts";
import { SignInError } from "./tokens.ts";

/** The provider sends the person back here; its client must list `<PUBLIC_URL>` + this path. */
export const CALLBACK_PATH = "/console/auth/callback";
/** The provider's sign-out sends the person back here; its client must list `<PUBLIC_URL>` + this path. */
export const SIGNED_OUT_PATH = "/console/sign-in";
/** The `state` of the sign-out, which the provider hands back: the sign-in page then says "signed out". */
export const SIGNED_OUT_STATE = "signed_out";
/** How long a started sign-in may take at the provider. */
export const FLOW_TTL_SECONDS = 600;

export interface FlowDeps extends SessionDeps {
  config: SessionDeps["config"] & Pick<Config, "publicUrl">;
}

/** A sign-in started here and not yet come back. */
export interface StartedFlow {
  /** Where to go once signed in (already a safe console path), and the form kept across the sign-in. */
  next: string;
  pending?: string;
}

interface FlowDoc extends Doc, StartedFlow {
  state: string;
  nonce: string;
  code_verifier: string;
  expires_at: number;
}

const flowsRef = (db: string): CollectionRef => ({ db, collection: "_console_sign_ins" });
const clock = (deps: FlowDeps) => (deps.now ?? Date.now)();
const redirectUri = (deps: FlowDeps) => `${deps.config.publicUrl}${CALLBACK_PATH}`;

/**
 * Starts a sign-in: keeps a new flow and returns the secret of its cookie and the provider's
 * authorization address to send the browser to.
 */
export async function beginSignIn(
  deps: FlowDeps,
  flow: StartedFlow,
): Promise<{ secret: string; location: string }> {
  const p = await provider(deps);
  if (!p.as.authorization_endpoint) {
    throw new SignInError(
      "unavailable",
      "The identity provider's discovery document names no authorization endpoint.",
    );
  }
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const nonce = oauth.generateRandomNonce();
  const now = clock(deps);
  const ref = flowsRef(deps.config.TESSERA_DB);
  await sweepFlows(deps, ref, now);
  const secret = randomToken();
  const doc: FlowDoc = {
    _id: await hashId(secret),
    state,
    nonce,
    code_verifier: codeVerifier,
    next: flow.next,
    ...(flow.pending ? { pending: flow.pending } : {}),
    expires_at: now + FLOW_TTL_SECONDS * 1000,
  };
  await deps.store.put(ref, doc);
  const url = new URL(p.as.authorization_endpoint);
  for (
    const [k, v] of Object.entries({
      response_type: "code",
      client_id: p.client.client_id,
      redirect_uri: redirectUri(deps),
      scope: "openid",
      state,
      nonce,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
    })
  ) url.searchParams.set(k, v);
  return { secret, location: url.href };
}

/** When each database's ended flows were last swept (ms since the epoch). */
const swept = new Map<string, number>();

/**
 * Deletes flows that were never finished, at most once a minute: starting a sign-in needs no session, so
 * a burst of starts must not each read every kept flow.
 */
async function sweepFlows(deps: FlowDeps, ref: CollectionRef, now: number): Promise<void> {
  if (now - (swept.get(ref.db) ?? -Infinity) < 60_000) return;
  swept.set(ref.db, now);
  const ended = (await deps.store.list(ref)).filter((d) => (d.expires_at as number) <= now);
  if (ended.length) await deps.store.deleteMany(ref, ended.map((d) => d._id));
}

/** Takes the flow a cookie's secret names (once): null when there is none, or it took too long. */
export async function takeFlow(
  deps: FlowDeps,
  secret: string | undefined,
): Promise<(StartedFlow & { doc: FlowDoc }) | null> {
  if (!secret) return null;
  const ref = flowsRef(deps.config.TESSERA_DB);
  const doc = (await deps.store.get(ref, await hashId(secret))) as FlowDoc | null;
  if (!doc) return null;
  await deps.store.delete(ref, doc._id);
  if (doc.expires_at <= clock(deps)) return null;
  return { next: doc.next, pending: doc.pending, doc };
}

/**
 * Finishes a sign-in at the provider's callback: the answer checked against the flow's `state`, the code
 * exchanged (with the PKCE verifier and the client's secret), the ID token's nonce, issuer and audience
 * checked, then a session made from the tokens. A SignInError says why not.
 */
export async function finishSignIn(
  deps: FlowDeps,
  flow: { doc: FlowDoc },
  callback: URL,
): Promise<{ secret: string }> {
  const p = await provider(deps);
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(p.as, p.client, callback, flow.doc.state);
  } catch (e) {
    throw authorizationError(e);
  }
  let tokens;
  try {
    const res = await oauth.authorizationCodeGrantRequest(
      p.as,
      p.client,
      p.auth,
      params,
      redirectUri(deps),
      flow.doc.code_verifier,
      p.options,
    );
    const answer = await oauth.processAuthorizationCodeResponse(p.as, p.client, res, {
      expectedNonce: flow.doc.nonce,
      requireIdToken: true,
    });
    tokens = tokensOf(answer);
  } catch (e) {
    throw providerError(e, "The identity provider did not complete the sign-in", "invalid");
  }
  return await createSession(deps, tokens);
}

/** The provider's answer to the authorization request as a SignInError (declined, failed, or not ours). */
function authorizationError(e: unknown): SignInError {
  if (e instanceof oauth.AuthorizationResponseError) {
    if (e.error === "access_denied") {
      return new SignInError("denied", "Sign-in was cancelled or refused at the identity provider.");
    }
    const reason = e.error === "temporarily_unavailable" || e.error === "server_error"
      ? "unavailable"
      : "invalid";
    const said = e.error_description ? `: ${e.error_description}` : "";
    return new SignInError(reason, `The identity provider did not sign you in (${e.error}${said}).`);
  }
  if (e instanceof oauth.OperationProcessingError) {
    return new SignInError(
      "invalid",
      "This sign-in answer does not belong to the sign-in started here; sign in again.",
    );
  }
  return providerError(e, "The identity provider's answer could not be read", "invalid");
}

/**
 * Where to send the browser after its session ended here, to end the provider's session too: the
 * provider's `end_session_endpoint` with the session's ID token as hint, the client id, and the sign-in
 * page as the way back. Null when the provider has no such endpoint or cannot be asked (the person is
 * still signed out of Tessera).
 */
export async function providerSignOutUrl(deps: FlowDeps, idToken: string | null): Promise<string | null> {
  if (deps.config.AUTH_MODE !== "oidc") return null;
  let p;
  try {
    p = await provider(deps);
  } catch (e) {
    if (e instanceof SignInError) return null;
    throw e;
  }
  if (!p.as.end_session_endpoint) return null;
  const url = new URL(p.as.end_session_endpoint);
  if (idToken) url.searchParams.set("id_token_hint", idToken);
  url.searchParams.set("client_id", p.client.client_id);
  url.searchParams.set("post_logout_redirect_uri", `${deps.config.publicUrl}${SIGNED_OUT_PATH}`);
  url.searchParams.set("state", SIGNED_OUT_STATE);
  return url.href;
}
