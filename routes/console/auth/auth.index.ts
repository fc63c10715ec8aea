/**
 * The console's doors: `GET /` and `/console` lead in, sign-in (the form, or the provider's start and
 * callback) needs no session (it makes one), sign-out goes through `signedIn` like every other form.
 */
import { Hono } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { signedIn } from "../shared/session.ts";
import { home, signInPage, signInSubmit, signOutSubmit } from "./auth.handlers.tsx";
import { authCallback, authStart, startLimit } from "./provider.handlers.tsx";

export function authRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get("/", (c) => c.redirect("/console/", 303)); // the session cookie is only sent under /console
  app.get("/console", (c) => c.redirect("/console/", 301));
  app.get("/console/", home);
  app.get("/console/sign-in", signInPage);
  app.post("/console/sign-in", signInSubmit);
  const starts = startLimit(); // per app, as each app has its own store
  app.get("/console/auth/start", (c) => authStart(c, starts)); // AUTH_MODE=oidc: the provider's sign-in
  app.get("/console/auth/callback", authCallback);
  app.post("/console/sign-out", signedIn(), signOutSubmit);
  return app;
}
