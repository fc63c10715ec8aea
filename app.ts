/**
 * createApp(deps): every middleware and route group, no I/O of its own, so tests call `app.request()`.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv, Deps } from "./routes/http/env.ts";
import { newRouter } from "./routes/http/router.ts";
import { onError } from "./routes/http/error_answers.ts";
import { megabytes, perRouteLimit, streamingBodyLimit } from "./routes/http/body_limit.ts";
import { methodNotAllowed } from "./routes/http/method_not_allowed.ts";
import { apiCors } from "./routes/http/cors.ts";
import { healthRoutes } from "./routes/health/health.index.ts";
import { docsRoutes } from "./routes/http/docs.ts";
import { datasetRoutes } from "./routes/datasets/datasets.index.ts";
import { importDataset as importDatasetRoute } from "./routes/datasets/datasets.routes.ts";
import { taskRoutes } from "./routes/tasks/tasks.index.ts";
import { spatialRoutes } from "./routes/spatial/spatial.index.ts";
import { mitigationRoutes } from "./routes/mitigation/mitigation.index.ts";
import { spatialBiasRoutes } from "./routes/spatial_bias/spatial_bias.index.ts";
import { annotationRoutes } from "./routes/annotation/annotation.index.ts";
import { valuationRoutes } from "./routes/valuation/valuation.index.ts";
import { cleaningRoutes } from "./routes/cleaning/cleaning.index.ts";
import { decisionRoutes } from "./routes/decisions/decisions.index.ts";
import { CONSOLE_UPLOAD, consoleRoutes } from "./routes/console/console.index.ts";
import { type LineLevel, log, setLogLevel, withRequestId } from "./core/log.ts";
import { PreparedDatasets } from "./services/datasets/prepared.ts";

/**
 * The level of a request's line: a 5xx is `error` (ours to fix), a 4xx `warn` (the caller's), a
 * `/healthz` or `/readyz` that succeeded is `debug` (probes every few seconds would drown the log),
 * anything else `info`.
 */
function requestLevel(path: string, status: number): LineLevel {
  if (status >= 500) return "error";
  if (status >= 400) return "warn";
  return path === "/healthz" || path === "/readyz" ? "debug" : "info";
}

/**
 * Request id on every response, and one JSON line per request (`log`, so LOG_LEVEL decides) at its
 * level (`requestLevel`).
 */
const requestLog = createMiddleware<AppEnv>(async (c, next) => {
  const id = c.req.header("x-request-id")?.slice(0, 128) || crypto.randomUUID();
  c.set("requestId", id);
  const t0 = performance.now();
  await withRequestId(id, next);
  c.header("X-Request-Id", id);
  log(requestLevel(c.req.path, c.res.status), "request", {
    request_id: id, // written after the request's context has ended
    method: c.req.method,
    path: c.req.path,
    status: c.res.status,
    ms: Math.round((performance.now() - t0) * 10) / 10,
    sub: c.var.principal?.sub,
  });
});

/** Builds the whole application over its dependencies. */
export function createApp(deps: Deps): OpenAPIHono<AppEnv> {
  setLogLevel(deps.config.LOG_LEVEL);
  const app = newRouter();
  app.use("*", requestLog);
  // before every route's own middleware: a preflight carries no token, so it is answered here, not by
  // the bearer check (401) or the not-found handler (405)
  app.use("*", apiCors(deps.config.CORS_ORIGINS));
  // one cache of prepared datasets per app, unless the caller shares its own
  const withCache = {
    ...deps,
    prepared: deps.prepared ?? new PreparedDatasets(deps.config.PREPARED_CACHE_MB),
  };
  app.use("*", async (c, next) => {
    c.set("deps", withCache);
    await next();
  });
  // BODY_LIMIT_MB for every route but the dataset imports (the API's and the console's upload), which
  // stream their body into the store: IMPORT_BODY_LIMIT_MB
  const importLimit = megabytes(deps.config.IMPORT_BODY_LIMIT_MB, "the import's limit");
  app.use(
    "*",
    streamingBodyLimit(perRouteLimit(megabytes(deps.config.BODY_LIMIT_MB), [
      { route: importDatasetRoute, limit: importLimit },
      { route: CONSOLE_UPLOAD, limit: importLimit },
    ])),
  );
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });

  const groups = [
    healthRoutes(),
    datasetRoutes(),
    taskRoutes(),
    spatialRoutes(),
    mitigationRoutes(),
    spatialBiasRoutes(),
    annotationRoutes(),
    valuationRoutes(),
    cleaningRoutes(),
    decisionRoutes(),
    ...(deps.extraRoutes ?? []),
  ];
  for (const group of groups) app.route("/", group);
  app.route("/", consoleRoutes()); // the review console's pages: not in /openapi.json, no bearer token
  docsRoutes(app);
  // a path served with other methods: 405 + Allow (OPTIONS: 204 + Allow); else the 404
  app.notFound(methodNotAllowed(app, (c) => c.json({ detail: "Not Found" }, 404)));
  app.onError(onError);
  return app;
}
