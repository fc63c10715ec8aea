/** The probes' answers: HTTP in, HTTP out; readiness asks the store. */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./health.routes.ts";

export const healthz: AppRouteHandler<typeof routes.healthz> = (c) => c.json({ status: "ok" }, 200);

export const readyz: AppRouteHandler<typeof routes.readyz> = async (c) => {
  const { store } = c.var.deps;
  try {
    await store.ping();
    return c.json({ status: "ready", store: store.kind }, 200);
  } catch {
    return c.json({ status: "unavailable", store: store.kind }, 503);
  }
};
