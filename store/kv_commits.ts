/**
 * The embedded store's commits: writes split into as few atomic commits as KV's per-commit limits allow,
 * each with the collection's write count (kv_pack.ts), and KV's refusals turned into the store's typed
 * errors (a duplicate id, a document too large).
 */
import { serialize } from "node:v8";
import { type CollectionRef, DocumentTooLargeError, DuplicateIdError } from "./store.ts";
import { countWrite } from "./kv_pack_layout.ts";
import {
  commitRetrying,
  commitStamped,
  GET_MANY,
  keyBytes,
  MAX_BYTES,
  MAX_CHECKS,
  MAX_KEY_BYTES,
  MAX_MUTATIONS,
  MAX_VALUE_BYTES,
  valueBytes,
} from "./kv_limits.ts";

/** The versionstamp of an insert's last commit: that of the collection's write count right after it. */
export interface LastCommit {
  stamp: string | null;
}

/** One write of a commit; `absent` makes it insert-only (the commit fails when the key exists). */
export interface Write {
  key: Deno.KvKey;
  value: unknown;
  /** Only if the key is absent (an insert). */
  absent?: boolean;
  /** Only if the key still holds this version (an update of what was read). */
  stamp?: string;
}

/** One atomic commit of writes that each expect the version they read. */
export async function commitGuarded(
  kv: Deno.Kv,
  ref: CollectionRef,
  writes: Write[],
): Promise<"ok" | "changed" | "too large"> {
  if (!writes.length) return "ok";
  const op = countWrite(kv.atomic(), ref);
  for (const w of writes) op.check({ key: w.key, versionstamp: w.stamp! }).set(w.key, w.value);
  try {
    return (await commitRetrying(() => op)) ? "ok" : "changed";
  } catch (err) {
    if (/Total \w+ size too large/.test((err as Error).message) && writes.length > 1) return "too large";
    throw err;
  }
}

/**
 * Writes in order, in as few atomic commits as KV's per-commit limits allow; a refused write throws
 * a typed error whose `written` counts the writes committed before its commit (none after are).
 */
export async function commitInChunks(
  kv: Deno.Kv,
  ref: CollectionRef,
  writes: Write[],
  last?: LastCommit,
): Promise<number> {
  let commits = 0;
  let start = 0, end = chunkEnd(writes, 0), op = chunkOp(kv, ref, writes, start, end);
  while (start < writes.length) {
    const committing = commitChunk(kv, ref, writes, start, end, op, last);
    // KV serialises each value as it is set: the next commit is made while KV's writer takes this one,
    // and committed only once this one is in (it is dropped if this one fails)
    const nextEnd = end < writes.length ? chunkEnd(writes, end) : end;
    const next = end < writes.length ? chunkOp(kv, ref, writes, end, nextEnd) : op;
    commits += await committing;
    (start = end, end = nextEnd, op = next);
  }
  return commits;
}

/** The atomic operation writing writes[start, end), with the collection's write count. */
function chunkOp(
  kv: Deno.Kv,
  ref: CollectionRef,
  writes: Write[],
  start: number,
  end: number,
): Deno.AtomicOperation {
  const op = countWrite(kv.atomic(), ref);
  for (let i = start; i < end; i++) {
    const w = writes[i];
    if (w.absent) op.check({ key: w.key, versionstamp: null });
    op.set(w.key, w.value);
  }
  return op;
}

/** Where the commit starting at `start` must end to stay within KV's limits (at least one write). */
export function chunkEnd(writes: Write[], start: number): number {
  let checks = 0;
  let bytes = 0;
  let keys = 0;
  for (let i = start; i < writes.length; i++) {
    const w = writes[i];
    const k = keyBytes(w.key) * (w.absent || w.stamp ? 2 : 1);
    const size = valueBytes(w.value) + k;
    const checked = w.absent || w.stamp ? 1 : 0;
    const over = i - start >= MAX_MUTATIONS || checks + checked > MAX_CHECKS ||
      bytes + size > MAX_BYTES || keys + k > MAX_KEY_BYTES;
    if (over && i > start) return i;
    checks += checked;
    bytes += size;
    keys += k;
  }
  return writes.length;
}

/**
 * Commits writes[start, end) atomically; halves the span when KV finds it larger than estimated.
 * Returns the commits it took (each adds one to the collection's write count).
 */
async function commitChunk(
  kv: Deno.Kv,
  ref: CollectionRef,
  writes: Write[],
  start: number,
  end: number,
  made?: Deno.AtomicOperation,
  last?: LastCommit,
): Promise<number> {
  let vanished = 0;
  for (;;) {
    const op = made ?? chunkOp(kv, ref, writes, start, end);
    made = undefined; // a second try makes its operation again
    let stamp: string | null;
    try {
      stamp = await commitStamped(() => op); // waits out another handle's write lock
    } catch (err) {
      const message = (err as Error).message;
      if (/Value too large/.test(message)) throw tooLarge(writes, start, end) ?? err;
      if (/Total \w+ size too large/.test(message) && end - start > 1) {
        const mid = start + Math.floor((end - start) / 2);
        return await commitChunk(kv, ref, writes, start, mid, undefined, last) +
          await commitChunk(kv, ref, writes, mid, end, undefined, last);
      }
      throw err;
    }
    if (stamp !== null) {
      if (last) last.stamp = stamp;
      return 1;
    }
    const taken = await firstExisting(kv, writes, start, end);
    if (taken >= 0) throw new DuplicateIdError(String(writes[taken].key.at(-1)), taken, start);
    // the key that failed the check was deleted since: try again, but not forever
    if (++vanished > 3) throw new Error("an insert kept failing its absence check on keys that are absent");
  }
}

/** The first write of the span whose key must be absent but exists, or -1. */
async function firstExisting(kv: Deno.Kv, writes: Write[], start: number, end: number): Promise<number> {
  const checked = writes.slice(start, end).map((w, i) => ({ w, i: start + i })).filter((x) => x.w.absent);
  for (let j = 0; j < checked.length; j += GET_MANY) {
    const part = checked.slice(j, j + GET_MANY);
    const found = await kv.getMany(part.map((x) => x.w.key));
    const hit = found.findIndex((e) => e.versionstamp !== null);
    if (hit >= 0) return part[hit].i;
  }
  return -1;
}

/** Names the write KV refused as too large, measuring values as KV does (V8 serialisation). */
function tooLarge(writes: Write[], start: number, end: number): DocumentTooLargeError | null {
  for (let i = start; i < end; i++) {
    const bytes = serialize(writes[i].value).length;
    if (bytes > MAX_VALUE_BYTES) return new DocumentTooLargeError(i, bytes, MAX_VALUE_BYTES, start);
  }
  return null;
}
