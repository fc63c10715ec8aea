/**
 * Rate limit of the cleaning routes (spec 3's 429): a token bucket per client, the token's client id
 * (`azp`) or else the caller's address. RATE_LIMIT_CAPACITY requests at once, refilled at
 * RATE_LIMIT_PER_SECOND; a refusal says in Retry-After how many seconds until the next token. The
 * buckets live in this instance's memory: behind a load balancer each instance counts on its own.
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/env.ts";

/** Buckets keyed by client; the clock is injectable (tests use fake timers or their own). */
export class TokenBuckets {
  private buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly capacity: number,
    readonly perSecond: number,
    private now: () => number = () => Date.now(),
  ) {}

  /** Takes one token: 0 when granted, else the whole seconds to wait for the next one. */
  take(key: string): number {
    const t = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.capacity, at: t };
    b.tokens = Math.min(this.capacity, b.tokens + ((t - b.at) / 1000) * this.perSecond);
    b.at = t;
    this.buckets.set(key, b);
    if (this.buckets.size > 10_000) this.prune(t);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond));
  }

  /** Forgets buckets that have refilled: a full bucket and no bucket are the same. */
  private prune(t: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + ((t - b.at) / 1000) * this.perSecond >= this.capacity) this.buckets.delete(k);
    }
  }
}

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
