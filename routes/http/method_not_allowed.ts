/**
 * What a request that no route answered gets: a 405 with `Allow` when its path is one the app serves with
 * other methods (RFC 9110 §15.5.6), `OPTIONS` on such a path a 204 with the same `Allow`, else the 404.
 * The methods come from the app's own routes, so a new route is covered without a list to keep.
 */
import type { Context, NotFoundHandler } from "hono";

/** A registered route's path as a whole-path pattern (`:name` one segment, `:name{re}` its own, `*` any rest). */
function pathPattern(path: string): RegExp {
  let re = "";
  for (let i = 0; i < path.length;) {
    const ch = path[i];
    if (ch === ":") {
      const name = /^:[A-Za-z0-9_-]+/.exec(path.slice(i))![0];
      i += name.length;
      if (path[i] === "{") {
        const end = path.indexOf("}", i);
        re += `(?:${path.slice(i + 1, end)})`;
        i = end + 1;
      } else re += "[^/]+";
    } else if (ch === "*") {
      re += ".*";
      i++;
    } else {
      re += ch.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
      i++;
    }
  }
  return new RegExp(`^${re}$`);
}

/** The order `Allow` lists methods in. */
const ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * The app's not-found handler: 405 + Allow, 204 + Allow for OPTIONS, or `notFound` (the plain 404) when no
 * route has the path. Routes registered for every method (middleware, `app.all`) say nothing about which
 * methods a path has, so they are left out; HEAD is allowed wherever GET is (Hono answers it from GET).
 */
export function methodNotAllowed(
  app: { routes: readonly { method: string; path: string }[] },
  notFound: NotFoundHandler,
): NotFoundHandler {
  let table: { pattern: RegExp; method: string }[] | null = null;
  return (c: Context) => {
    table ??= app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => ({ pattern: pathPattern(r.path), method: r.method.toUpperCase() }));
    const path = c.req.path;
    const methods = new Set(table.filter((r) => r.pattern.test(path)).map((r) => r.method));
    if (!methods.size) return notFound(c);
    if (methods.has("GET")) methods.add("HEAD");
    methods.add("OPTIONS");
    const allow = ORDER.filter((m) => methods.has(m)).join(", ");
    if (c.req.method === "OPTIONS") return c.body(null, 204, { Allow: allow });
    return c.json({ detail: `Method Not Allowed: ${c.req.method} ${path} (allowed: ${allow})` }, 405, {
      Allow: allow,
    });
  };
}
