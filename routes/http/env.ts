/** The Hono environment every route shares: the dependencies a request may use, and who sent it. */
import type { OpenAPIHono, RouteConfig, RouteHandler } from "@hono/zod-openapi";
import type { Config } from "../../config.ts";
import type { Store } from "../../store/store.ts";
import type { Principal, TokenVerifier } from "../../core/auth/types.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import type { Realm } from "../../services/auth/realm.ts";
import type { PreparedDatasets } from "../../services/datasets/prepared.ts";
/** What a route may use: configuration, the store, and the token verifier (null when AUTH_MODE=off). */
export interface Deps {
  config: Config;
  store: Store;
  verifier: TokenVerifier | null;
  /** Workers for CPU work of seconds (workers/tasks.ts names what they can run). */
  pool: WorkerPool;
  /** Prepared datasets kept between requests (createApp makes one of PREPARED_CACHE_MB when absent). */
  prepared?: PreparedDatasets;
  /** The local realm (AUTH_MODE=local): the review console signs people in through its password grant. */
  realm?: Realm | null;
  /** Extra route groups mounted by main.ts (the local token issuer). */
  extraRoutes?: OpenAPIHono<AppEnv>[];
}

export type AppEnv = {
  Variables: { requestId: string; deps: Deps; principal: Principal };
};

/** A handler of one route definition: its validated input and its declared answers are typed. */
export type AppRouteHandler<R extends RouteConfig> = RouteHandler<R, AppEnv>;
