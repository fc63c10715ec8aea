/**
 * The limit on failed password attempts of the local realm's token endpoint (and so of the console's
 * sign-in, which calls the same grant). Failures are counted in a sliding window three ways:
 *
 * - per (username, address) pair: 5 in 60 s. What a single guesser meets first.
 * - per address, whatever the username: 20 in 60 s. Stops one address trying many names.
 * - per username, whatever the address: 10 in 60 s. Stops guessing one user's password from many
 *   addresses; a pair that signed in successfully in the last 7 days is exempt, so an attacker elsewhere
 *   cannot lock the real user out of the address they use.
 *
 * A refused attempt (429, Retry-After: when the oldest counted failure leaves the window) is not checked
 * and not counted, so a refusal lasts at most one window after the last failure it counted. A success
 * forgets the failures of its pair and of its username (not of its address: an attacker with an account
 * of their own would reset the address count by signing in). Usernames count whether or not the user
 * exists, the same way, so the answers say nothing about which users exist. IPv6 addresses count per /64
 * (one host's usual allocation). The counts live in this instance's memory: behind a load balancer each
 * instance counts on its own, and the address is the connection's peer (a proxy in front is one address
 * for everyone behind it; the per-pair trust keeps its users' usual sign-ins working).
 */

/** One kind of count: `failures` within `windowMs` refuse the next attempt. */
export interface WindowLimit {
  failures: number;
  windowMs: number;
}

export interface ThrottleLimits {
  pair: WindowLimit;
  address: WindowLimit;
  username: WindowLimit;
  /** How long a pair that signed in stays exempt from the per-username limit. */
  trustMs: number;
}

export const DEFAULT_LIMITS: ThrottleLimits = {
  pair: { failures: 5, windowMs: 60_000 },
  address: { failures: 20, windowMs: 60_000 },
  username: { failures: 10, windowMs: 60_000 },
  trustMs: 7 * 24 * 3600_000,
};

/** A map of counts is first pruned at this many keys, then at twice what a pruning left. */
const PRUNE_AT = 10_000;
/** The most keys a map holds: beyond it, the least recent go (down to 3/4 of it). */
export const MAX_KEYS = 100_000;

/**
 * Drops the entries that no longer count, then the least recent beyond 3/4 of MAX_KEYS (a map's order is
 * the order of last use); the size at which to prune next, so that pruning costs O(1) per entry added.
 */
function prune<V>(map: Map<string, V>, lapsed: (v: V) => boolean): number {
  for (const [k, v] of map) if (lapsed(v)) map.delete(k);
  for (const k of map.keys()) {
    if (map.size <= (MAX_KEYS * 3) / 4) break;
    map.delete(k);
  }
  return Math.min(MAX_KEYS, Math.max(PRUNE_AT, 2 * map.size));
}

/** Failure times per key, the last `failures` of them, oldest first. */
class FailureWindows {
  private times = new Map<string, number[]>();
  private pruneAt = PRUNE_AT;

  constructor(readonly limit: WindowLimit) {}

  /** Milliseconds until the key may try again; 0 when it may now. */
  wait(key: string, now: number): number {
    const t = this.times.get(key);
    if (!t || t.length < this.limit.failures) return 0;
    return Math.max(0, t[0] + this.limit.windowMs - now);
  }

  add(key: string, now: number): void {
    const t = this.times.get(key) ?? [];
    t.push(now);
    if (t.length > this.limit.failures) t.shift();
    this.times.delete(key); // re-inserted last: the map's order is the order of last failure
    this.times.set(key, t);
    if (this.times.size > this.pruneAt) {
      this.pruneAt = prune(this.times, (t) => t[t.length - 1] + this.limit.windowMs <= now);
    }
  }

  clear(key: string): void {
    this.times.delete(key);
  }
}

/** The counts of one realm. The clock is injectable (tests pass their own or fake Date). */
export class LoginThrottle {
  private pairs: FailureWindows;
  private addresses: FailureWindows;
  private usernames: FailureWindows;
  /** Pairs that signed in, and until when they are exempt from the per-username count. */
  private trusted = new Map<string, number>();
  private pruneTrustedAt = PRUNE_AT;

  constructor(
    readonly limits: ThrottleLimits = DEFAULT_LIMITS,
    private readonly now: () => number = () => Date.now(),
  ) {
    this.pairs = new FailureWindows(limits.pair);
    this.addresses = new FailureWindows(limits.address);
    this.usernames = new FailureWindows(limits.username);
  }

  /** Whole seconds this attempt must wait before its password may be checked; 0 when it may be now. */
  check(username: string, address: string): number {
    const now = this.now();
    const addr = addressKey(address);
    const pair = pairKey(username, addr);
    let ms = Math.max(this.pairs.wait(pair, now), this.addresses.wait(addr, now));
    if (!this.isTrusted(pair, now)) ms = Math.max(ms, this.usernames.wait(username, now));
    return ms > 0 ? Math.ceil(ms / 1000) : 0;
  }

  /** Counts a wrong password (or an unknown user) from this address. */
  failed(username: string, address: string): void {
    const now = this.now();
    const addr = addressKey(address);
    this.pairs.add(pairKey(username, addr), now);
    this.addresses.add(addr, now);
    this.usernames.add(username, now);
  }

  /** A right password: the pair's and the username's failures are forgotten, and the pair is trusted. */
  succeeded(username: string, address: string): void {
    const now = this.now();
    const pair = pairKey(username, addressKey(address));
    this.pairs.clear(pair);
    this.usernames.clear(username);
    this.trusted.delete(pair);
    this.trusted.set(pair, now + this.limits.trustMs);
    if (this.trusted.size > this.pruneTrustedAt) {
      this.pruneTrustedAt = prune(this.trusted, (until) => until <= now);
    }
  }

  private isTrusted(pair: string, now: number): boolean {
    const until = this.trusted.get(pair);
    return until !== undefined && until > now;
  }
}

const pairKey = (username: string, addr: string) => JSON.stringify([username, addr]);

/**
 * The address an attempt counts under: an IPv4 address as it is (also when IPv4-mapped in IPv6), an IPv6
 * address by its first 64 bits; anything else (no address known) as it is.
 */
export function addressKey(address: string): string {
  const a = address.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1];
  if (!a.includes(":")) return a;
  const groups = expandIPv6(a);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : a;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part allowed), or null. */
function expandIPv6(a: string): string[] | null {
  let text = a;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [b0, b1, b2, b3] = v4.slice(1).map(Number);
    text = `${text.slice(0, v4.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16).toString(16));
}
