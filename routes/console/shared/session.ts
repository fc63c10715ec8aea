/**
 * The console's sessions on the HTTP side: the cookie, the `signedIn` middleware every page but sign-in
 * goes through (session lookup, Origin and CSRF checks on anything that changes state), and the answers
 * for an ended session (back to sign-in, keeping where the person was going and a form they had sent).
 */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { ConsoleEnv } from "./env.ts";
import { sessionDeps } from "./env.ts";
import {
  findSession,
  keepPendingForm,
  sameToken,
  type SessionLookup,
  takePendingForm,
} from "../../../services/console/sessions.ts";
import { forbiddenPage } from "./error_pages.tsx";
import { roleRefusal } from "../../auth/require_role.ts";
import type { AppEnv } from "../../http/env.ts";

export const COOKIE = "tessera_session";
/** The form field of the CSRF token. */
export const CSRF_FIELD = "_csrf";

/** Sets the session cookie: HttpOnly, SameSite=Strict, only for /console, Secure behind HTTPS. */
export function setSessionCookie(c: Context, secret: string): void {
  setCookie(c, COOKIE, secret, {
    httpOnly: true,
    sameSite: "Strict",
    path: "/console",
    secure: c.var.deps.config.publicUrl.startsWith("https:"),
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, COOKIE, { path: "/console", secure: c.var.deps.config.publicUrl.startsWith("https:") });
}

/** The session the request's cookie names (refreshed if it can be), or why there is none. */
export async function lookupSession(c: Context<AppEnv> | Context<ConsoleEnv>): Promise<SessionLookup> {
  const secret = getCookie(c, COOKIE);
  return secret ? await findSession(sessionDeps(c), secret) : { state: "none" };
}

/**
 * Whether a state-changing request may come from where it says: its Origin (else its Referer's origin)
 * must be PUBLIC_URL's origin or the request's own. Browsers send Origin with every POST; a request
 * with neither header is no cross-site form, and its CSRF token decides.
 */
export function originAllowed(c: Context): boolean {
  const allowed = new Set([new URL(c.var.deps.config.publicUrl).origin, new URL(c.req.url).origin]);
  const origin = c.req.header("origin");
  if (origin !== undefined) return allowed.has(origin);
  const referer = c.req.header("referer");
  if (!referer) return true;
  try {
    return allowed.has(new URL(referer).origin);
  } catch {
    return false;
  }
}

/** A console path to go back to after signing in: only a path of the console, never another site. */
export function safeNext(next: string | undefined | null): string {
  return next && /^\/console(\/[^\s\\]*)?(\?[^\s\\]*)?$/.test(next) && !next.startsWith("//")
    ? next
    : "/console/tasks";
}

/** Where a sign-in ends: the safe `next`, with the id of a form kept across the sign-in when there is one. */
export function afterSignIn(next: string, pending: string | undefined): string {
  return pending ? `${next}${next.includes("?") ? "&" : "?"}pending=${encodeURIComponent(pending)}` : next;
}

/** The sign-in page's address, carrying where to go next, why, and a kept form. */
export function signInUrl(opts: { next?: string; expired?: boolean; pending?: string }): string {
  const q = new URLSearchParams();
  if (opts.next && opts.next !== "/console/tasks") q.set("next", opts.next);
  if (opts.expired) q.set("expired", "1");
  if (opts.pending) q.set("pending", opts.pending);
  const s = q.toString();
  return `/console/sign-in${s ? `?${s}` : ""}`;
}

const isForm = (type: string | undefined) => /^application\/x-www-form-urlencoded\b/i.test(type ?? "");
const isMultipart = (type: string | undefined) => /^multipart\/form-data\b/i.test(type ?? "");

/** The path and query of the page a form was sent from (its Referer), if readable. */
function refererPath(c: Context): string | undefined {
  try {
    const u = new URL(c.req.header("referer") ?? "");
    return u.pathname + u.search;
  } catch {
    return undefined;
  }
}

/** Where a request was going, as a path and query. */
const hereOf = (c: Context) => {
  const u = new URL(c.req.url);
  return u.pathname + u.search;
};

/**
 * Every console page but sign-in: a live session or back to sign-in. A request that changes state must
 * come from the console's own origin and carry the session's CSRF token in the `_csrf` field of a
 * url-encoded form (403 otherwise). `multipart: true` (the upload, which streams its body) leaves the
 * token to the handler, which reads it from the first part with `checkCsrf`; any other route refuses
 * multipart bodies.
 */
export function signedIn(opts: { multipart?: boolean } = {}): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    const unsafe = c.req.method !== "GET" && c.req.method !== "HEAD";
    if (unsafe && !originAllowed(c)) return forbiddenPage(c, "This request came from another site.");
    const found = await lookupSession(c);
    if (found.state !== "active") {
      if (found.state === "expired") clearSessionCookie(c);
      const expired = found.state === "expired";
      if (!unsafe) return c.redirect(signInUrl({ next: hereOf(c), expired }), 303);
      // a form sent too late: kept for the same person's next sign-in when it is theirs (its token matches)
      const nextPath = safeNext(refererPath(c));
      let pending: string | undefined;
      if (expired && isForm(c.req.header("content-type"))) {
        const { [CSRF_FIELD]: token, ...fields } = await formFields(c);
        if (typeof token === "string" && sameToken(token, found.session.csrf)) {
          pending = await keepPendingForm(sessionDeps(c), found.session.username, {
            path: new URL(c.req.url).pathname,
            fields,
          });
        }
      }
      return c.redirect(signInUrl({ next: nextPath, expired, pending }), 303);
    }
    c.set("session", found.session);
    const { sub, username, role } = found.session;
    c.set("principal", { sub, username, role }); // for the request log
    // no role: nothing to see; signing out stays possible
    if (role === null && new URL(c.req.url).pathname !== "/console/sign-out") {
      return forbiddenPage(c, roleRefusal("viewer", null));
    }
    if (unsafe) {
      const type = c.req.header("content-type");
      if (isMultipart(type) && opts.multipart) return await next();
      if (!isForm(type)) return forbiddenPage(c, "This form could not be accepted (unexpected encoding).");
      const token = (await formFields(c))[CSRF_FIELD];
      if (!checkCsrf(c, token)) {
        return forbiddenPage(c, "This form has expired or did not come from this console.");
      }
    }
    await next();
  };
}

/** Whether `token` is the session's CSRF token. */
export function checkCsrf(c: Context<ConsoleEnv>, token: unknown): boolean {
  return typeof token === "string" && sameToken(token, c.var.session.csrf);
}

/** A url-encoded form's fields as strings (a repeated field keeps its last value). */
export async function formFields(c: Context): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    const last = Array.isArray(v) ? v.at(-1) : v;
    if (typeof last === "string") out[k] = last;
  }
  return out;
}

/**
 * The fields of a form the person sent to `path` when their session had ended, if the page was opened
 * with its `pending` id after signing in again (once; only for the same person).
 */
export async function pendingFormFor(
  c: Context<ConsoleEnv>,
  path: string,
): Promise<Record<string, string> | null> {
  const id = c.req.query("pending");
  if (!id) return null;
  const form = await takePendingForm(sessionDeps(c), id, c.var.session.username);
  return form && form.path === path ? form.fields : null;
}
