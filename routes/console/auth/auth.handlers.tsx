/**
 * Sign in and sign out. AUTH_MODE=local (and off): the console's own form, whose password the server
 * hands to the local issuer (services/console) before keeping the session in the store; AUTH_MODE=oidc:
 * a link to the provider's sign-in (provider.handlers.tsx), and no password is taken here. The browser
 * only holds the cookie naming the session. `GET /` and `GET /console/` lead here, or to the tasks.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../../http/env.ts";
import type { ConsoleEnv } from "../shared/env.ts";
import { sessionDeps } from "../shared/env.ts";
import { render } from "../shared/components.tsx";
import { SignInPage, type SignInView } from "./views/sign_in_page.tsx";
import { MovingOnPage } from "./views/moving_on_page.tsx";
import {
  afterSignIn,
  clearSessionCookie,
  COOKIE,
  formFields,
  lookupSession,
  originAllowed,
  safeNext,
  setSessionCookie,
} from "../shared/session.ts";
import { signIn, signOut } from "../../../services/console/sessions.ts";
import { SignInError } from "../../../services/console/issuer.ts";
import { providerSignOutUrl, SIGNED_OUT_STATE } from "../../../services/console/oidc_flow.ts";
import { clientAddress } from "../../auth/client_address.ts";
import { forbiddenPage } from "../shared/error_pages.tsx";

/** `GET /` and `GET /console/`: the tasks when signed in, else the sign-in page. */
export async function home(c: Context<AppEnv>) {
  const found = await lookupSession(c);
  return c.redirect(found.state === "active" ? "/console/tasks" : "/console/sign-in", 303);
}

/** The status of a page that shows why a sign-in failed. */
export function signInStatus(reason: SignInError["reason"]) {
  return ({ refused: 422, throttled: 429, denied: 403, invalid: 400, unavailable: 503 } as const)[reason];
}

/** The sign-in page's view for where the person is going: with a provider, its link carries `next` and `pending`. */
export function signInView(c: Context<ConsoleEnv>, next: string, pending?: string): SignInView {
  const { AUTH_MODE, OIDC_PROVIDER_NAME } = c.var.deps.config;
  const view: SignInView = { next, pending, offMode: AUTH_MODE === "off" };
  if (AUTH_MODE === "oidc") {
    const q = new URLSearchParams({ next });
    if (pending) q.set("pending", pending);
    view.provider = { name: OIDC_PROVIDER_NAME ?? "single sign-on", href: `/console/auth/start?${q}` };
  }
  return view;
}

export async function signInPage(c: Context<ConsoleEnv>) {
  if ((await lookupSession(c)).state === "active") return c.redirect(safeNext(c.req.query("next")), 303);
  return render(
    c,
    <SignInPage
      {...signInView(c, safeNext(c.req.query("next")), c.req.query("pending"))}
      expired={c.req.query("expired") === "1"}
      signedOut={c.req.query("signed_out") === "1" || c.req.query("state") === SIGNED_OUT_STATE}
    />,
  );
}

export async function signInSubmit(c: Context<ConsoleEnv>) {
  if (c.var.deps.config.AUTH_MODE === "oidc") {
    // the provider takes its users' passwords, never this server: the body is not even read
    c.header("Allow", "GET");
    const error = "This server signs people in at the identity provider; it takes no password.";
    return render(c, <SignInPage {...signInView(c, "/console/tasks")} error={error} />, 405);
  }
  if (!originAllowed(c)) return forbiddenPage(c, "This sign-in came from another site.");
  const form = await formFields(c);
  const view: SignInView = {
    ...signInView(c, safeNext(form.next), form.pending || undefined),
    username: form.username ?? "",
  };
  if (!view.username?.trim()) return render(c, <SignInPage {...view} error="Enter your username." />, 422);
  try {
    const { secret } = await signIn(sessionDeps(c), {
      username: view.username,
      password: form.password ?? "",
      clientAddress: clientAddress(c),
    });
    const previous = getCookie(c, COOKIE);
    if (previous) await signOut(sessionDeps(c), previous);
    setSessionCookie(c, secret);
  } catch (e) {
    if (!(e instanceof SignInError)) throw e;
    return render(c, <SignInPage {...view} error={e.message} />, signInStatus(e.reason));
  }
  return c.redirect(afterSignIn(view.next, view.pending), 303);
}

/**
 * Ends the session (the signedIn middleware has checked the origin and the CSRF token); with a provider,
 * then at the provider too, which sends the person back to the sign-in page.
 */
export async function signOutSubmit(c: Context<ConsoleEnv>) {
  const secret = getCookie(c, COOKIE);
  const { idToken } = secret ? await signOut(sessionDeps(c), secret) : { idToken: null };
  clearSessionCookie(c);
  const atProvider = await providerSignOutUrl(sessionDeps(c), idToken);
  if (!atProvider) return c.redirect("/console/sign-in?signed_out=1", 303);
  c.header("Refresh", `0;url=${atProvider}`);
  const text = "You have signed out of Tessera; now signing out at the identity provider…";
  return render(c, <MovingOnPage title="Signing out" text={text} href={atProvider} link="Continue" />);
}
