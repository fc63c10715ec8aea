/**
 * Deno KV's limits, the sizes of keys and values as they count against them, and the wait for another
 * handle's write lock (store/kv.ts, store/kv_pack.ts).
 */

/**
 * KV's own ceilings per atomic commit (mutations kept at half of KV's 1,000; bytes estimated from JSON
 * length, under KV's 800 KiB), keys per getMany, and the largest value (V8-serialised bytes).
 */
export const MAX_MUTATIONS = 500;
export const MAX_CHECKS = 100;
export const MAX_BYTES = 600_000;
export const MAX_KEY_BYTES = 81_920;
export const GET_MANY = 10;
export const MAX_VALUE_BYTES = 65_536;
/** Commits retried while another handle holds the file's lock: 5 ms more each time, about 1 s in all. */
const BUSY_RETRIES = 20;

/** A key's encoded size as KV counts it: each part's bytes plus a type tag and a terminator. */
export function keyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) n += (typeof part === "string" ? encodedLength(part) : 8) + 2;
  return n;
}

/**
 * The length of a value's JSON text, at most (what commits were sized by), estimated without writing it:
 * an integer by its digits rounded up, any other number 25, a string without its escapes. A commit that
 * KV finds larger than estimated is split (commitChunk).
 */
export function valueBytes(v: unknown): number {
  if (typeof v === "number") return numberBytes(v);
  if (typeof v === "string") return v.length + 2;
  if (v === null || typeof v !== "object") return 5;
  let n = 2;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      // numbers without a call: lists of ids are most of an import's values
      n += (typeof x === "number" ? numberBytes(x) : valueBytes(x)) + 1;
    }
    return n;
  }
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return JSON.stringify(v)?.length ?? 8; // a Date, bytes
  for (const key in v) {
    if (Object.hasOwn(v, key)) n += key.length + 4 + valueBytes((v as Record<string, unknown>)[key]);
  }
  return n;
}

/**
 * A number's JSON length, at most: an integer's digits rounded up, any other number 25, the longest a double
 * takes ("-0.0000012345678901234567").
 */
function numberBytes(v: number): number {
  if (!Number.isInteger(v)) return 25;
  const a = v < 0 ? -v : v;
  return (v < 0 ? 1 : 0) +
    (a < 10 ? 1 : a < 100 ? 2 : a < 1e3 ? 3 : a < 1e4 ? 4 : a < 1e6 ? 6 : a < 1e9 ? 9 : 24);
}

/** UTF-8 bytes of a key string (a NUL takes two, escaped), counted without encoding it. */
function encodedLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0 || (c >= 0x80 && c < 0x800) || (c >= 0xd800 && c < 0xe000)) n += 1; // a surrogate: half of 4
    else if (c >= 0x800) n += 2;
  }
  return n;
}

/** Commits `make()`'s operation, again while another handle holds the file's write lock. */
export async function commitRetrying(make: () => Deno.AtomicOperation): Promise<boolean> {
  return (await commitStamped(make)) !== null;
}

/** As commitRetrying, with the commit's versionstamp (every key it wrote has it), or null when a check failed. */
export async function commitStamped(make: () => Deno.AtomicOperation): Promise<string | null> {
  for (let busy = 0;; busy++) {
    try {
      const result = await make().commit();
      return result.ok ? result.versionstamp : null;
    } catch (err) {
      if (!/database is locked/.test((err as Error).message) || busy >= BUSY_RETRIES) throw err;
      await new Promise((r) => setTimeout(r, 5 * (busy + 1)));
    }
  }
}
