/** Token buckets per key: the cleaning routes' rate limit and the console's sign-in starts share them. */

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
