/**
 * The auth area: the local realm's route definitions bound to their handlers, and the start-up step that
 * gives the app its token verifier and, for AUTH_MODE=local, the realm's routes.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";
import type { TokenVerifier } from "../../core/auth/types.ts";
import type { AppEnv } from "../http/env.ts";
import { newRouter } from "../http/router.ts";
import { configureAuth } from "../../services/auth/setup.ts";
import type { Realm } from "../../services/auth/realm.ts";
import * as routes from "./auth.routes.ts";
import * as handlers from "./auth.handlers.ts";

/** The token, certs and discovery endpoints of the one configured realm. */
export function realmRoutes(realm: Realm) {
  return newRouter()
    .openapi(routes.token, handlers.token(realm), handlers.tokenFormHook)
    .openapi(routes.certs, handlers.certs(realm))
    .openapi(routes.discovery, handlers.discovery(realm));
}

export interface AuthSetup {
  /** null only for AUTH_MODE=off. */
  verifier: TokenVerifier | null;
  /** Route groups to mount (the local realm's endpoints). */
  routes: OpenAPIHono<AppEnv>[];
  /** The local realm (AUTH_MODE=local), else null: the console's sign-in uses its password grant. */
  realm: Realm | null;
}

/** The configured mode's verifier, and the realm's routes to mount when Tessera is its own issuer. */
export async function setupAuth(config: Config, store: Store): Promise<AuthSetup> {
  const { verifier, realm } = await configureAuth({ config, store });
  return { verifier, routes: realm ? [realmRoutes(realm)] : [], realm };
}
