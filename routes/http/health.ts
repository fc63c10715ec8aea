/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the store answers). */
import { createRoute, z } from "@hono/zod-openapi";
import { newRouter } from "./router.ts";
import { json } from "./schemas.ts";

const Health = z.object({ status: z.string(), store: z.string().optional() });

export function healthRoutes() {
  const app = newRouter();
  app.openapi(
    createRoute({
      method: "get",
      path: "/healthz",
      tags: ["health"],
      responses: { 200: json(Health, "The process is up") },
    }),
    (c) => c.json({ status: "ok" }, 200),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/readyz",
      tags: ["health"],
      responses: { 200: json(Health, "The store answers"), 503: json(Health, "The store does not answer") },
    }),
    async (c) => {
      const { store } = c.var.deps;
      try {
        await store.ping();
        return c.json({ status: "ready", store: store.kind }, 200);
      } catch {
        return c.json({ status: "unavailable", store: store.kind }, 503);
      }
    },
  );
  return app;
}
