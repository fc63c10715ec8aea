/** The console's Hono environment: the app's, plus the signed-in session a page renders for. */
import type { Context } from "hono";
import type { AppEnv } from "../../http/env.ts";
import type { ConsoleSession, SessionDeps } from "../../../services/console/sessions.ts";

export type ConsoleEnv = {
  Variables: AppEnv["Variables"] & { session: ConsoleSession };
};

export type ConsoleContext = Context<ConsoleEnv>;

/** The session service's dependencies from the request's. */
export function sessionDeps(c: Context<ConsoleEnv> | Context<AppEnv>): SessionDeps {
  const { store, config, realm, verifier } = c.var.deps;
  return { store, config, realm, verifier };
}
