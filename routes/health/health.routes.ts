/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the store answers); no token needed. */
import { createRoute, z } from "@hono/zod-openapi";
import { json } from "../http/schemas.ts";

const Health = z.object({ status: z.string(), store: z.string().optional() }).openapi("Health");

export const healthz = createRoute({
  method: "get",
  path: "/healthz",
  tags: ["health"],
  responses: { 200: json(Health, "The process is up") },
});

export const readyz = createRoute({
  method: "get",
  path: "/readyz",
  tags: ["health"],
  responses: { 200: json(Health, "The store answers"), 503: json(Health, "The store does not answer") },
});
