/** The console's Hono environment: the app's, plus the signed-in session a page renders for. */
import type { Context } from "hono";
import type { AppEnv } from "../../http/env.ts";
import type { ConsoleSession } from "../../../services/console/sessions.ts";
import type { FlowDeps } from "../../../services/console/oidc_flow.ts";

export type ConsoleEnv = {
  Variables: AppEnv["Variables"] & { session: ConsoleSession };
};

export type ConsoleContext = Context<ConsoleEnv>;

/** The session service's dependencies from the request's. */
export function sessionDeps(c: Context<ConsoleEnv> | Context<AppEnv>): FlowDeps {
  const { store, config, realm, verifier } = c.var.deps;
  return { store, config, realm, verifier };
}
