/**
 * Sign in and sign out. The server asks the configured issuer for a token with the person's username
 * and password (services/console) and keeps the session in the store; the browser only holds the
 * cookie naming it. `GET /` and `GET /console/` lead here, or to the tasks when signed in.
 */
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../../http/env.ts";
import type { ConsoleEnv } from "../shared/env.ts";
import { sessionDeps } from "../shared/env.ts";
import { render } from "../shared/components.tsx";
import { SignInPage, type SignInView } from "./views/sign_in_page.tsx";
import {
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
import { clientAddress } from "../../auth/client_address.ts";
import { forbiddenPage } from "../shared/error_pages.tsx";

/** `GET /` and `GET /console/`: the tasks when signed in, else the sign-in page. */
export async function home(c: Context<AppEnv>) {
  const found = await lookupSession(c);
  return c.redirect(found.state === "active" ? "/console/tasks" : "/console/sign-in", 303);
}

export async function signInPage(c: Context<ConsoleEnv>) {
  if ((await lookupSession(c)).state === "active") return c.redirect(safeNext(c.req.query("next")), 303);
  return render(
    c,
    <SignInPage
      next={safeNext(c.req.query("next"))}
      pending={c.req.query("pending")}
      expired={c.req.query("expired") === "1"}
      signedOut={c.req.query("signed_out") === "1"}
      offMode={c.var.deps.config.AUTH_MODE === "off"}
    />,
  );
}

export async function signInSubmit(c: Context<ConsoleEnv>) {
  if (!originAllowed(c)) return forbiddenPage(c, "This sign-in came from another site.");
  const form = await formFields(c);
  const view: SignInView = {
    next: safeNext(form.next),
    pending: form.pending || undefined,
    username: form.username ?? "",
    offMode: c.var.deps.config.AUTH_MODE === "off",
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
    const status = e.reason === "refused" ? 422 : e.reason === "throttled" ? 429 : 503;
    return render(c, <SignInPage {...view} error={e.message} />, status);
  }
  const to = view.pending
    ? `${view.next}${view.next.includes("?") ? "&" : "?"}pending=${encodeURIComponent(view.pending)}`
    : view.next;
  return c.redirect(to, 303);
}

/** Ends the session (the signedIn middleware has checked the origin and the CSRF token). */
export async function signOutSubmit(c: Context<ConsoleEnv>) {
  const secret = getCookie(c, COOKIE);
  if (secret) await signOut(sessionDeps(c), secret);
  clearSessionCookie(c);
  return c.redirect("/console/sign-in?signed_out=1", 303);
}
