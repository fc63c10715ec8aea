/**
 * The layout of a KV collection's pack (kv_pack.ts) under its keys: the format now made, the record a
 * ready pack keeps of itself (`["packmeta", …]`), the collection's write count (`["stamp", …]`) every commit
 * of its documents adds one to, and where each segment's column pages go (`["colpage", …]`).
 */
import { commitRetrying, MAX_MUTATIONS } from "./kv_limits.ts";
import type { CollectionRef } from "./store.ts";

/**
 * The format of the packs made now: column pages under `["colpage", …]`. A pack recorded without it is of an
 * older one: format 2 kept the same pages under `["packcol", …]`, the first JSON pages under `["packpage", …]`.
 */
export const PACK_FORMAT = 3;
/**
 * The fewest documents worth a pack: a new one is begun by an insert of this many or more, or by a whole
 * read that lists this many (listing fewer one by one takes a few tens of milliseconds at most).
 */
export const MIN_PACK_DOCS = 1000;
/** Pages listed per KV round trip when sweeping. */
export const PAGES_PER_LIST = 16;
/** Pages a commit holds (each under PAGE_BYTES; a commit holds 800 KiB). */
export const PAGES_A_COMMIT = 12;
/**
 * Pages listed per KV round trip when reading (up to 60 KB each), and how many are read ahead: a stream
 * holds at most both (about 3 MB), so an export to a slow client stays small.
 */
export const PAGES_PER_READ = 16;
export const READ_AHEAD = 32;
/**
 * Segments a pack is extended to at most (an import of 1,000 rows a batch adds one a batch, so 2,000,000
 * rows); past it the pack goes stale and the next whole read makes one of a single segment. Their list,
 * ~28 characters a segment, stays under KV's 64 KiB a value.
 */
export const MAX_SEGMENTS = 2000;

/** What a ready pack says of itself. */
export interface PackMeta {
  /** PACK_FORMAT (absent: an older pack, of JSON pages, which is not read). */
  format?: number;
  /**
   * Its segments in order, "token:pages" joined by commas: segment t's column pages are
   * `["packcol", db, collection, t, 0..pages-1]`.
   */
  segments: string;
  docs: number;
  /** The id of its last document ("" when empty): a document appended must come after it. */
  lastId: string;
  /** The collection's write count it holds the documents of. */
  count: number;
}

/** The collection's pack and write count as read in one step. */
export interface PackState {
  /** The pack, when it holds the collection as it is now. */
  ready: PackMeta | null;
  /** The pack recorded, current or not: its segments go when another is declared. */
  recorded: PackMeta | null;
  /** Versionstamps of the pack's record and of the write count, for the commit that replaces them. */
  metaStamp: string | null;
  countStamp: string | null;
  count: number;
}

export const stampKey = (ref: CollectionRef): Deno.KvKey => ["stamp", ref.db, ref.collection];
export const metaKey = (ref: CollectionRef): Deno.KvKey => ["packmeta", ref.db, ref.collection];
/** Where packs of older formats kept their pages: swept with the pack that replaces them. */
const olderPrefixes = (ref: CollectionRef): Deno.KvKey[] => [
  ["packpage", ref.db, ref.collection],
  ["packcol", ref.db, ref.collection],
];
/**
 * The pages sort before every document (`["doc", …]`), because SQLite writes a collection's documents
 * faster when the rows after them are small ones rather than pages, and an import writes both at once
 * (BENCHMARKS.md, "Import").
 */
export const columnsPrefix = (ref: CollectionRef): Deno.KvKey => ["colpage", ref.db, ref.collection];

/** A segment of a pack: its token and its column pages. */
export interface Segment {
  token: string;
  pages: number;
}

/** A pack's segments ("token:pages", by commas). */
export function segmentsOf(pack: PackMeta): Segment[] {
  if (!pack.segments) return [];
  return pack.segments.split(",").map((s) => {
    const [token, pages] = s.split(":");
    return { token, pages: Number(pages) };
  });
}

/** Adds one to the collection's write count: part of every commit that writes its documents. */
export function countWrite(op: Deno.AtomicOperation, ref: CollectionRef): Deno.AtomicOperation {
  return op.sum(stampKey(ref), 1n);
}

/** Deletes the pages of these segments' tokens (of every segment when null: the collection's drop). */
export async function sweepSegments(kv: Deno.Kv, ref: CollectionRef, tokens: string[] | null): Promise<void> {
  const prefixes = [...olderPrefixes(ref), columnsPrefix(ref)];
  const selectors = prefixes.flatMap((prefix) =>
    tokens === null ? [{ prefix }] : tokens.map((t) => ({ prefix: [...prefix, t] }))
  );
  for (const selector of selectors) {
    let op = kv.atomic();
    let n = 0;
    for await (const e of kv.list(selector, { batchSize: PAGES_PER_LIST })) {
      op.delete(e.key);
      if (++n % MAX_MUTATIONS === 0) {
        await commitRetrying(() => op);
        op = kv.atomic();
      }
    }
    if (n % MAX_MUTATIONS) await commitRetrying(() => op);
  }
}
