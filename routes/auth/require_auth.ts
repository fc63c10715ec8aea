/** Bearer-token check for every route of the three specs (RFC 6750 challenge on failure). */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/env.ts";
import { AuthError } from "../../core/auth/types.ts";
import { log } from "../../core/log.ts";

/**
 * The RFC 6750 challenge; the description loses quotes and backslashes (a quoted-string) and anything
 * outside printable ASCII (a header value), since it may echo a token's issuer or audience.
 */
const challenge = (description: string) =>
  `Bearer error="invalid_token", error_description="${description.replace(/["\\]|[^\x20-\x7e]/g, "")}"`;

/** Verifies `Authorization: Bearer …` and stores the principal; 401 with WWW-Authenticate otherwise. */
export const requireAuth = createMiddleware<AppEnv>(async (c, next) => {
  const { verifier } = c.var.deps;
  if (!verifier) {
    c.set("principal", { sub: "anonymous", role: "steward" }); // AUTH_MODE=off: as before roles
    return await next();
  }
  const header = c.req.header("authorization") ?? "";
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) {
    c.header(
      "WWW-Authenticate",
      challenge(header ? "malformed authorization header" : "missing bearer token"),
    );
    return c.json({ detail: "Not authenticated" }, 401);
  }
  try {
    c.set("principal", await verifier.verify(m[1]));
  } catch (e) {
    if (!(e instanceof AuthError)) {
      // the provider's keys could not be fetched: not the caller's fault, so no 401
      log("error", "the identity provider's keys are unavailable", { error: `token verification: ${e}` });
      return c.json({ detail: "the identity provider's keys are unavailable" }, 503);
    }
    c.header("WWW-Authenticate", challenge(e.message));
    return c.json({ detail: `Invalid token: ${e.message}` }, 401);
  }
  await next();
});
