/**
 * The cleaning area: its route definitions bound to their handlers, each behind this app's rate limiter
 * (after authentication: it keys on the client), and its invalid input answered with 400 as spec 3 says.
 */
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { Hook } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.ts";
import { newRouter } from "../http/router.ts";
import { locRoot, onError } from "../http/error_answers.ts";
import { InvalidInputsError } from "../../core/errors.ts";
import { rateLimit } from "./rate_limit.ts";
import { ApproveRequest, RunRequest } from "./cleaning.schemas.ts";
import * as routes from "./cleaning.routes.ts";
import * as handlers from "./cleaning.handlers.ts";

/** A request that fails its schema: a 400 naming each field; an unknown key lists the `allowed` ones. */
const invalid = (allowed: string[]): Hook<unknown, AppEnv, string, undefined> => (result) => {
  if (result.success) return;
  const data = (result as { data?: unknown }).data;
  throw new InvalidInputsError([{
    loc: [locRoot(result.target)],
    error: result.error,
    input: data,
    allowed,
  }]);
};

export function cleaningRoutes() {
  const app = newRouter();
  const limiter = rateLimit(); // one set of buckets per app
  // after the route's own checks (the token, then the role)
  const limited = <R extends RouteConfig>(r: R) =>
    createRoute({ ...r, middleware: [...[r.middleware ?? []].flat(), limiter] } as R);
  // This spec answers invalid parameters with 400, JSON-syntax errors included.
  app.onError((err, c) => onError(err, c, 400));
  return app
    .openapi(limited(routes.run), handlers.run, invalid(Object.keys(RunRequest.shape)))
    .openapi(limited(routes.approve), handlers.approve, invalid(Object.keys(ApproveRequest.shape)))
    .openapi(limited(routes.undo), handlers.undo, invalid([]))
    .openapi(limited(routes.newJobs), handlers.newJobs)
    .openapi(limited(routes.job), handlers.job, invalid([]))
    .openapi(limited(routes.results), handlers.results, invalid([]));
}
