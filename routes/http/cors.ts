/**
 * CORS for the JSON API (CORS_ORIGINS): a page of a listed origin may call it with a bearer token. Hono's
 * `cors` writes the headers; this wrapper decides which requests it sees: only those of a listed origin, on
 * any path but the console's (`/` and `/console/*`, which never answer another origin). No credentials
 * (cookies) are allowed and no wildcard is ever sent: a listed origin is echoed back.
 */
import { cors } from "hono/cors";
import { createMiddleware } from "hono/factory";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.ts";

/** The methods of the API's routes, as a preflight answers them (HEAD, like GET, needs none). */
export const CORS_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];
/** The request headers a page may send beyond the CORS-safelisted ones. */
export const CORS_HEADERS = ["Authorization", "Content-Type", "X-Request-Id"];
/** The answer headers a page may read beyond the CORS-safelisted ones. */
export const CORS_EXPOSED = [
  "Content-Disposition",
  "X-Request-Id",
  "WWW-Authenticate",
  "Allow",
  "Retry-After",
];
/** Seconds a browser may keep a preflight's answer. */
export const CORS_MAX_AGE = 600;

/** The console's own paths: server-rendered pages behind a cookie, never offered to another origin. */
function isConsolePath(path: string): boolean {
  return path === "/" || path === "/console" || path.startsWith("/console/");
}

/** The app-wide CORS middleware for `origins` (exact origins), or a pass-through when there are none. */
export function apiCors(origins: readonly string[]): MiddlewareHandler<AppEnv> {
  const listed = new Set(origins);
  const headers = cors({
    origin: (origin) => (listed.has(origin) ? origin : null),
    allowMethods: CORS_METHODS,
    allowHeaders: CORS_HEADERS,
    exposeHeaders: CORS_EXPOSED,
    maxAge: CORS_MAX_AGE,
  });
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!listed.size || isConsolePath(c.req.path)) return await next();
    const origin = c.req.header("origin");
    if (!origin || !listed.has(origin)) {
      // an answer that names a listed origin when asked by one must not be reused for another (caches)
      await next();
      c.header("Vary", "Origin", { append: true });
      return;
    }
    // a plain OPTIONS (no Access-Control-Request-Method) is no preflight: the app's 204 + Allow answers it
    if (c.req.method === "OPTIONS" && !c.req.header("access-control-request-method")) {
      await next();
      c.header("Access-Control-Allow-Origin", origin);
      c.header("Access-Control-Expose-Headers", CORS_EXPOSED.join(","));
      c.header("Vary", "Origin", { append: true });
      return;
    }
    return await headers(c, next);
  });
}
