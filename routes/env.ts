/** The Hono environment every route shares, and the helpers that keep route definitions short. */
import { createRoute, OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Config } from "../config.ts";
import type { Store } from "../store/store.ts";
import type { Principal, TokenVerifier } from "../core/auth/types.ts";
import type { WorkerPool } from "../workers/pool.ts";
import { locRoot, validationResponse, zodToDetail } from "./errors.ts";
import { requireAuth } from "./auth_middleware.ts";

/** What a route may use: configuration, the store, and the token verifier (null when AUTH_MODE=off). */
export interface Deps {
  config: Config;
  store: Store;
  verifier: TokenVerifier | null;
  /** Workers for CPU work of seconds (workers/tasks.ts names what they can run). */
  pool: WorkerPool;
  /** Extra route groups mounted by main.ts (the local token issuer). */
  extraRoutes?: OpenAPIHono<AppEnv>[];
}

export type AppEnv = {
  Variables: { requestId: string; deps: Deps; principal: Principal };
};

/** A sub-app whose validation failures answer FastAPI-shaped 422s. */
export function newRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        return validationResponse(
          c,
          zodToDetail(result.error, locRoot(result.target), (result as { data?: unknown }).data),
        );
      }
    },
  });
}

/** A route that needs a bearer token: the middleware runs and the OpenAPI document says so. */
export function securedRoute<R extends RouteConfig>(config: R) {
  return createRoute(
    {
      ...config,
      middleware: [requireAuth],
      security: [{ bearerAuth: [] }],
    } as R & { middleware: typeof requireAuth[]; security: { bearerAuth: never[] }[] },
  );
}

/** The `{detail}` body of every non-422 error, for OpenAPI responses. */
export { errorResponses } from "./schemas.ts";
