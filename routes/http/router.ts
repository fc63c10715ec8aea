/** Sub-apps with the service's validation and body rules, and the helper that keeps route definitions short. */
import { createRoute, OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv, AppRouteHandler } from "./env.ts";
import { locRoot, validationResponse, zodToDetail } from "./error_answers.ts";
import { requireAuth } from "../auth/require_auth.ts";
import { requireRole } from "../auth/require_role.ts";
import type { Role } from "../../core/auth/roles.ts";
import { InvalidInputError } from "../../core/errors.ts";

/**
 * A sub-app whose validation failures answer FastAPI-shaped 422s, and whose JSON-only bodies are read
 * whatever their Content-Type (jsonBodyAsFastApi).
 */
export function newRouter(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        return validationResponse(
          c,
          zodToDetail(result.error, locRoot(result.target), (result as { data?: unknown }).data),
        );
      }
    },
  });
  const openapi = app.openapi;
  app.openapi =
    ((route: RouteConfig, ...rest: unknown[]) =>
      (openapi as (...a: unknown[]) => unknown)(withJsonBodyReader(route), ...rest)) as typeof app.openapi;
  return app;
}

/** The names of `R` that `order` leaves out: never when it lists them all. */
type Unlisted<R, O extends readonly PropertyKey[]> = Exclude<keyof R, O[number]>;

/**
 * Binds each route definition of an area to the handler of the same name, in `order`, the order
 * /openapi.json lists them in (a module's namespace sorts its names, so the index says the order). A
 * missing or mistyped handler is a type error, and so is a definition that `order` leaves out.
 */
export function bindRoutes<
  R extends Record<string, RouteConfig>,
  const O extends readonly (keyof R & string)[],
>(
  app: OpenAPIHono<AppEnv>,
  routes: R,
  handlers: { [K in keyof R]: AppRouteHandler<R[K]> },
  order: O & ([Unlisted<R, O>] extends [never] ? unknown : { unlisted: Unlisted<R, O> }),
): OpenAPIHono<AppEnv> {
  if (new Set(order).size !== order.length) throw new Error(`a route is listed twice: ${order.join(", ")}`);
  for (const name of order) app.openapi(routes[name], handlers[name]);
  return app;
}

/** The media types zod-openapi's gate takes as JSON; anything else it would refuse with a 415. */
const JSON_TYPE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/** The route with jsonBodyAsFastApi after its own middleware (auth first) when JSON is its only body. */
function withJsonBodyReader<R extends RouteConfig>(route: R): R {
  const body = route.request?.body;
  const types = Object.keys(body?.content ?? {});
  if (!types.length || !types.every((t) => JSON_TYPE.test(t))) return route;
  const own = route.middleware ? [route.middleware].flat() : [];
  return { ...route, middleware: [...own, jsonBodyAsFastApi(body?.required === true)] };
}

/**
 * Reads a JSON route's body the way FastAPI (the spec's reference) does: an absent Content-Type is parsed
 * as JSON, and so is a non-JSON one (where FastAPI would answer 422; never zod-openapi's 415, which no
 * spec lists); an empty body is a missing one: a 422 at `["body"]` (400 in a group whose spec answers
 * invalid input so: cleaning jobs) when the body is required, no body (defaults) when it is optional.
 */
function jsonBodyAsFastApi(required: boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.req.raw;
    const type = raw.headers.get("content-type");
    const bytes = raw.body ? await c.req.arrayBuffer() : new ArrayBuffer(0);
    if (bytes.byteLength === 0) {
      // thrown, so the group's onError answers it with its status (422, or 400 for cleaning jobs)
      if (required) throw new InvalidInputError("Field required", ["body"], "missing");
      if (type === null) return await next();
    } else if (type !== null && JSON_TYPE.test(type)) return await next();
    const headers = new Headers(raw.headers);
    if (bytes.byteLength === 0) headers.delete("content-type");
    else headers.set("content-type", "application/json");
    c.req.raw = new Request(raw.url, {
      method: raw.method,
      headers,
      body: bytes.byteLength ? bytes : null,
      signal: raw.signal,
    });
    await next();
  };
}

/** What each level is called in a route's description. */
const WHO: Record<Role, string> = {
  viewer: "any role (viewer, reviewer or steward)",
  reviewer: "the reviewer or steward role",
  steward: "the steward role",
};

/**
 * A route that needs a bearer token whose role includes `role`: both checks run, and the OpenAPI
 * document says so (its security, and its description names the role).
 */
export function securedRoute<R extends RouteConfig & { role: Role }>(config: R) {
  const { role, ...route } = config;
  const needs = `Needs ${WHO[role]}.`;
  return createRoute(
    {
      ...route,
      description: route.description ? `${route.description}\n\n${needs}` : needs,
      middleware: [requireAuth, requireRole(role)],
      security: [{ bearerAuth: [] }],
    } as unknown as Omit<R, "role"> & {
      middleware: typeof requireAuth[];
      security: { bearerAuth: never[] }[];
    },
  );
}
