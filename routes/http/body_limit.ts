/**
 * The request body limits without buffering, one per route: BODY_LIMIT_MB for every route, except the
 * routes given their own (the dataset import, which streams its body into the store: IMPORT_BODY_LIMIT_MB).
 * Hono's `bodyLimit` reads a body sent without Content-Length (chunked) whole into memory before the route
 * sees a byte, which would hold a large upload in memory and defeat streaming imports. Here the body is
 * counted as the route reads it; past the limit the read fails, the route's own failure path runs (an
 * import undoes itself), and the answer is a 413.
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./env.ts";

/** A body limit: its bytes, and the 413's detail. */
export interface BodyLimit {
  maxBytes: number;
  detail: string;
}

/** A route with a limit of its own: its method and OpenAPI path (`/api/datasets/{database_name}/...`). */
export interface RouteBodyLimit {
  route: { method: string; path: string };
  limit: BodyLimit;
}

/** A limit of `mb` megabytes (MiB), its detail naming them and, if given, what the limit is for. */
export function megabytes(mb: number, what?: string): BodyLimit {
  return {
    maxBytes: mb * 1024 * 1024,
    detail: `request body larger than ${mb} MB${what ? ` (${what})` : ""}`,
  };
}

/** Chooses a request's limit: that of the first route in `routes` it is for, else `general`. */
export function perRouteLimit(
  general: BodyLimit,
  routes: RouteBodyLimit[],
): (method: string, path: string) => BodyLimit {
  const rules = routes.map(({ route, limit }) => ({
    method: route.method.toUpperCase(),
    // a path parameter is one segment: `{name}` matches what a router's `:name` matches
    path: new RegExp(`^${route.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}/]+\}/g, "[^/]+")}$`),
    limit,
  }));
  return (method, path) => rules.find((r) => r.method === method && r.path.test(path))?.limit ?? general;
}

/** 413 for a declared Content-Length over the request's limit, or once a streamed body passes it. */
export function streamingBodyLimit(limitOf: (method: string, path: string) => BodyLimit) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const { maxBytes, detail } = limitOf(raw.method, c.req.path);
    const tooLarge = () => Response.json({ detail }, { status: 413 });
    const declared = raw.headers.get("content-length");
    if (declared !== null && !raw.headers.has("transfer-encoding")) {
      return Number(declared) > maxBytes ? tooLarge() : next();
    }
    let size = 0, exceeded = false;
    const counted = raw.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          size += chunk.byteLength;
          if (size <= maxBytes) return out.enqueue(chunk);
          exceeded = true;
          out.error(new RangeError(detail));
        },
      }),
    );
    c.req.raw = new Request(raw, { body: counted, duplex: "half" } as RequestInit);
    await next();
    // whatever the route answered to its failed read (onError has run by now), the cause was the size
    if (exceeded) c.res = tooLarge();
  });
}
