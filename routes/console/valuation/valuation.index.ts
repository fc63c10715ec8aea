/** The valuation's route: one page, whose analysis runs on a GET. */
import { Hono } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { signedIn } from "../shared/session.ts";
import { needs } from "../shared/roles.ts";
import { valuationPage } from "./valuation.handlers.tsx";
import { VALUATION } from "./valuation_query.ts";

export function valuationRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  app.get(VALUATION, signedIn(), needs("reviewer"), valuationPage);
  return app;
}
