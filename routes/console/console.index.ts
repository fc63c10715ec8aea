/**
 * The review console: server-rendered pages (hono/jsx) under /console, plain Hono routes outside
 * /openapi.json. Every page handler calls the same services as the JSON API. Sign-in is the only page
 * without a session; every other route goes through `signedIn` (session, Origin and CSRF checks).
 * A console cookie authorises nothing but these pages: the JSON API stays bearer-only.
 */
import { Hono } from "hono";
import type { MiddlewareHandler } from "hono";
import type { ConsoleEnv } from "./shared/env.ts";
import { signedIn } from "./shared/session.ts";
import { assetRoutes } from "./shared/assets.ts";
import { errorPage, notFoundPage } from "./shared/error_pages.tsx";
import { authRoutes } from "./auth/auth.index.ts";
import { tasksRoutes } from "./tasks/tasks.index.ts";
import { reviewRoutes } from "./review/review.index.ts";
import { datasetsRoutes } from "./datasets/datasets.index.ts";
import { cleaningRoutes } from "./cleaning/cleaning.index.ts";
import { valuationRoutes } from "./valuation/valuation.index.ts";

export { CONSOLE_UPLOAD } from "./datasets/datasets.index.ts";

/**
 * What a console page may load and do: only Tessera's own scripts, styles, images and frames; forms
 * post only here; no one may frame the console. A page that needs more (a map's tiles) widens it here.
 */
const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self'",
  "script-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

const securityHeaders: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
  await next();
  // a response with a policy of its own keeps it (a run's HTML map: sandboxed, framed by the console)
  if (!c.res.headers.has("Content-Security-Policy")) c.header("Content-Security-Policy", CSP);
  c.header("X-Content-Type-Options", "nosniff");
  if (!c.res.headers.has("X-Frame-Options")) c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
};

/** The console's routes (mounted at `/` by app.ts: `GET /` leads into the console). */
export function consoleRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.onError(errorPage);
  app.use("/console/*", securityHeaders);
  app.use("/console", securityHeaders);

  // each area's router holds its own paths and puts `signedIn` on those that need a session
  app.route("/", authRoutes());
  app.route("/", assetRoutes());
  app.route("/", tasksRoutes());
  app.route("/", reviewRoutes()); // a task's own page: its spatial review
  app.route("/", datasetsRoutes());
  app.route("/", cleaningRoutes());
  app.route("/", valuationRoutes());

  app.all("/console/*", signedIn(), (c) => notFoundPage(c)); // last: any console path no area has
  return app;
}
