/** The address a request came from, as the server saw the connection (no forwarding header is trusted). */
import type { Context } from "hono";

/**
 * The connection's peer address (`Deno.serve`'s `remoteAddr`, which main.ts passes as the app's env);
 * "unknown" where there is none (tests' `app.request()`, an in-process caller). X-Forwarded-For is not
 * read: anyone can send it.
 */
export function clientAddress(c: Context): string {
  const info = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return info?.remoteAddr?.hostname ?? "unknown";
}
