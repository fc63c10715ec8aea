/**
 * Sign-in at the provider (AUTH_MODE=oidc): `GET /console/auth/start` keeps a new code flow
 * (services/console/oidc_flow.ts) under a short-lived cookie and sends the browser to the provider;
 * `GET /console/auth/callback` is where the provider sends it back, and makes the session.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { ConsoleEnv } from "../shared/env.ts";
import { sessionDeps } from "../shared/env.ts";
import { render } from "../shared/components.tsx";
import { notFoundPage } from "../shared/error_pages.tsx";
import { afterSignIn, COOKIE, lookupSession, safeNext, setSessionCookie } from "../shared/session.ts";
import { signOut } from "../../../services/console/sessions.ts";
import { SignInError } from "../../../services/console/issuer.ts";
import {
  beginSignIn,
  finishSignIn,
  FLOW_TTL_SECONDS,
  takeFlow,
} from "../../../services/console/oidc_flow.ts";
import { SignInPage } from "./views/sign_in_page.tsx";
import { TokenBuckets } from "../../http/token_buckets.ts";
import { clientAddress } from "../../auth/client_address.ts";
import { MovingOnPage } from "./views/moving_on_page.tsx";
import { signInStatus, signInView } from "./auth.handlers.tsx";

/** The cookie that ties a started sign-in to this browser: Lax, so the provider's redirect back carries it. */
const FLOW_COOKIE = "tessera_sign_in";
const FLOW_PATH = "/console/auth";

const secure = (c: Context<ConsoleEnv>) => c.var.deps.config.publicUrl.startsWith("https:");

/**
 * Sign-ins started per address: a start needs no session and keeps a flow for FLOW_TTL_SECONDS, so a burst
 * of them must not fill the store. 20 at once, then one every 6 s: far beyond a person signing in.
 */
export const startLimit = () => new TokenBuckets(20, 1 / 6);

/** `GET /console/auth/start?next=&pending=`: to the provider's sign-in, or on to `next` when signed in. */
export async function authStart(c: Context<ConsoleEnv>, starts: TokenBuckets) {
  if (c.var.deps.config.AUTH_MODE !== "oidc") return notFoundPage(c);
  const next = safeNext(c.req.query("next"));
  const pending = c.req.query("pending") || undefined;
  if ((await lookupSession(c)).state === "active") return c.redirect(afterSignIn(next, pending), 303);
  const wait = starts.take(clientAddress(c));
  if (wait > 0) {
    c.header("Retry-After", String(wait));
    const error = `Too many sign-ins were started from this address; try again in ${wait} s.`;
    return render(c, <SignInPage {...signInView(c, next, pending)} error={error} />, 429);
  }
  try {
    const { secret, location } = await beginSignIn(sessionDeps(c), { next, pending });
    setCookie(c, FLOW_COOKIE, secret, {
      httpOnly: true,
      sameSite: "Lax",
      path: FLOW_PATH,
      maxAge: FLOW_TTL_SECONDS,
      secure: secure(c),
    });
    return c.redirect(location, 303);
  } catch (e) {
    if (!(e instanceof SignInError)) throw e;
    return render(
      c,
      <SignInPage {...signInView(c, next, pending)} error={e.message} />,
      signInStatus(e.reason),
    );
  }
}

/** `GET /console/auth/callback`: the provider's answer; a session and on to `next`, or the sign-in page saying why not. */
export async function authCallback(c: Context<ConsoleEnv>) {
  if (c.var.deps.config.AUTH_MODE !== "oidc") return notFoundPage(c);
  const deps = sessionDeps(c);
  const flow = await takeFlow(deps, getCookie(c, FLOW_COOKIE));
  deleteCookie(c, FLOW_COOKIE, { path: FLOW_PATH, secure: secure(c) });
  if (!flow) {
    const error = "This sign-in was not started in this browser, or took too long; sign in again.";
    return render(c, <SignInPage {...signInView(c, "/console/tasks")} error={error} />, 400);
  }
  try {
    const { secret } = await finishSignIn(deps, flow, new URL(c.req.url));
    const previous = getCookie(c, COOKIE);
    if (previous) await signOut(deps, previous);
    setSessionCookie(c, secret);
  } catch (e) {
    if (!(e instanceof SignInError)) throw e;
    const view = signInView(c, flow.next, flow.pending);
    return render(c, <SignInPage {...view} error={e.message} />, signInStatus(e.reason));
  }
  const next = afterSignIn(flow.next, flow.pending);
  c.header("Refresh", `0;url=${next}`);
  return render(
    c,
    <MovingOnPage title="Signed in" text="Opening the console…" href={next} link="Continue" />,
  );
}
