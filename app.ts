/**
 * createApp(deps): every middleware and route group, no I/O of its own, so tests call `app.request()`.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { type AppEnv, type Deps, newRouter } from "./routes/env.ts";
import { onError } from "./routes/errors.ts";
import { healthRoutes } from "./routes/health.ts";
import { docsRoutes } from "./routes/docs.ts";
import { datasetImportRoutes } from "./routes/datasets.ts";
import { taskRoutes } from "./routes/tasks.ts";
import { spatialRoutes } from "./routes/spatial.ts";
import { spatialWritebackRoutes } from "./routes/spatial_writeback.ts";
import { spatialMitigationRoutes } from "./routes/spatial_mitigate.ts";
import { annotationRoutes } from "./routes/annotation.ts";
import { valuationRoutes } from "./routes/valuation.ts";
import { cleaningRoutes } from "./routes/cleaning.ts";

/** Request id on every response and one JSON log line per request. */
function requestLog(level: string) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const id = c.req.header("x-request-id")?.slice(0, 128) || crypto.randomUUID();
    c.set("requestId", id);
    const t0 = performance.now();
    await next();
    c.header("X-Request-Id", id);
    if (level === "silent" || (level !== "debug" && c.req.path === "/healthz")) return;
    console.log(JSON.stringify({
      time: new Date().toISOString(),
      level: c.res.status >= 500 ? "error" : "info",
      request_id: id,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round((performance.now() - t0) * 10) / 10,
      sub: c.var.principal?.sub,
    }));
  });
}

/** Builds the whole application over its dependencies. */
export function createApp(deps: Deps): OpenAPIHono<AppEnv> {
  const app = newRouter();
  app.use("*", requestLog(deps.config.LOG_LEVEL));
  app.use("*", async (c, next) => {
    c.set("deps", deps);
    await next();
  });
  app.use(
    "*",
    bodyLimit({
      maxSize: deps.config.BODY_LIMIT_MB * 1024 * 1024,
      onError: (c) => c.json({ detail: `request body larger than ${deps.config.BODY_LIMIT_MB} MB` }, 413),
    }),
  );
  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });

  const groups = [
    healthRoutes(),
    datasetImportRoutes(),
    taskRoutes(),
    spatialRoutes(),
    spatialWritebackRoutes(),
    spatialMitigationRoutes(),
    annotationRoutes(),
    valuationRoutes(),
    cleaningRoutes(),
    ...(deps.extraRoutes ?? []),
  ];
  for (const group of groups) app.route("/", group);
  docsRoutes(app);
  app.notFound((c) => c.json({ detail: "Not Found" }, 404));
  app.onError(onError);
  return app;
}
