/**
 * Rate limit of the cleaning routes (spec 3's 429): a token bucket per client, the token's client id
 * (`azp`) or else the caller's address. RATE_LIMIT_CAPACITY requests at once, refilled at
 * RATE_LIMIT_PER_SECOND; a refusal says in Retry-After how many seconds until the next token. The
 * buckets live in this instance's memory: behind a load balancer each instance counts on its own.
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/env.ts";
import { TokenBuckets } from "../http/token_buckets.ts";

/** The caller's key: its client id from the token, else its address. */
function clientKey(c: Parameters<Parameters<typeof createMiddleware<AppEnv>>[0]>[0]): string {
  const client = c.var.principal?.clientId;
  if (client) return `client:${client}`;
  const info = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return `addr:${info?.remoteAddr?.hostname ?? "unknown"}`;
}

/** The limiter middleware (after authentication, so the client id is known); capacity 0 turns it off. */
export function rateLimit() {
  let buckets: TokenBuckets | null = null;
  return createMiddleware<AppEnv>(async (c, next) => {
    const { RATE_LIMIT_CAPACITY: capacity, RATE_LIMIT_PER_SECOND: rate } = c.var.deps.config;
    if (capacity === 0) return await next();
    buckets ??= new TokenBuckets(capacity, rate);
    const wait = buckets.take(clientKey(c));
    if (wait === 0) return await next();
    c.header("Retry-After", String(wait));
    return c.json({
      detail: `rate limit exceeded (${capacity} requests, ${rate} per second); retry in ${wait} s`,
    }, 429);
  });
}
