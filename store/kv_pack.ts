/**
 * Packs: a KV collection's documents kept a second time, in id order, as column pages of a few hundred
 * documents (core/column_pages.ts: one KV value each, under KV's 64 KiB; numbers and lists of 32-bit ids as
 * typed arrays, anything else as JSON, each document's fields and their order kept), so that a whole read
 * lists a page where it would list a document, and an audit's read copies arrays (`columns`) instead of
 * parsing documents. KV spends 15-28 µs on every entry it lists, whatever its size (BENCHMARKS.md, "Packs").
 * Only documents JSON keeps exactly are packed (jsonExact), as the store's documents are JSON (store.ts).
 *
 * A pack is right only for the collection as it was: every commit that writes the collection's documents
 * adds one to its write count (`["stamp", db, collection]`, in the same commit), and a pack holds the count
 * it was made at. A pack is made in two ways, both of which check the count in the commit that declares
 * it ready, so a write that lands meanwhile leaves it unused:
 * - appended to by insertMany while documents come in id order after the pack's last one (an import);
 * - made by a whole read (`stream`) that found none, from the documents it lists anyway.
 * Each maker writes its pages under a token of its own (a segment), so two makers never write the same key;
 * a pack is the list of its segments. A maker whose pack is not declared deletes its segment; the segments
 * of a pack replaced go once the new one is declared, and all of them with the collection. A declared pack
 * never names a deleted page. A pack of an older format (PACK_FORMAT) is never read: the next whole read
 * makes a new one, and its pages go then.
 */
import { ConflictError } from "../core/errors.ts";
import { log } from "../core/log.ts";
import { newId } from "./ids.ts";
import { commitRetrying, MAX_MUTATIONS } from "./kv_limits.ts";
import { readAhead } from "./read_ahead.ts";
import type { CollectionRef, Doc } from "./store.ts";
import {
  type ColumnPage,
  columnPages,
  docBytes,
  FILL_BYTES,
  PAGE_BYTES,
  pageBytes,
  projectedDocuments,
} from "../core/column_pages.ts";

/**
 * The format of the packs made now: column pages under `["colpage", …]`. A pack recorded without it is of an
 * older one: format 2 kept the same pages under `["packcol", …]`, the first JSON pages under `["packpage", …]`.
 */
const PACK_FORMAT = 3;
/**
 * The fewest documents worth a pack: a new one is begun by an insert of this many or more, or by a whole
 * read that lists this many (listing fewer one by one takes a few tens of milliseconds at most).
 */
export const MIN_PACK_DOCS = 1000;
/** Pages listed per KV round trip when sweeping. */
const PAGES_PER_LIST = 16;
/** Pages a commit holds (each under PAGE_BYTES; a commit holds 800 KiB). */
const PAGES_A_COMMIT = 12;
/**
 * Pages listed per KV round trip when reading (up to 60 KB each), and how many are read ahead: a stream
 * holds at most both (about 3 MB), so an export to a slow client stays small.
 */
const PAGES_PER_READ = 16;
const READ_AHEAD = 32;
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
const metaKey = (ref: CollectionRef): Deno.KvKey => ["packmeta", ref.db, ref.collection];
/** Where packs of older formats kept their pages: swept with the pack that replaces them. */
const olderPrefixes = (ref: CollectionRef): Deno.KvKey[] => [
  ["packpage", ref.db, ref.collection],
  ["packcol", ref.db, ref.collection],
];
/**
 * The pages sort before every document (`["doc", …]`), because SQLite writes a collection's documents at
 * half the cost when the rows after them are small ones rather than pages: an import writes both at once,
 * and with the pages after the documents it took 5.4 s for 300,000 documents against 3.6-4.1 s this way
 * (BENCHMARKS.md, "Import").
 */
const columnsPrefix = (ref: CollectionRef): Deno.KvKey => ["colpage", ref.db, ref.collection];

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

/** Characters UTF-16 orders apart from UTF-8 (surrogates against U+E000-U+FFFF). */
const HIGH = /[\ud800-\uffff]/;

/** Whether ids sort in KV as they do in JS (no character KV's UTF-8 orders otherwise), each after `after`. */
export function ascendingAfter(ids: readonly string[], after: string): boolean {
  if (HIGH.test(after)) return false;
  let prev = after;
  for (const id of ids) {
    if (!(id > prev) || HIGH.test(id)) return false;
    prev = id;
  }
  return true;
}

/**
 * Whether JSON keeps `v` exactly: finite numbers but -0, strings, booleans, null, arrays without holes or
 * undefined, plain objects without undefined values. A pack is made only of such documents.
 */
export function jsonExact(v: unknown): boolean {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return finiteNotMinusZero(v);
    case "object": {
      if (v === null) return true;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const x = v[i];
          // a number is checked here, without a call: lists of ids are most of what an import packs
          if (typeof x === "number" ? !finiteNotMinusZero(x) : !(i in v) || !jsonExact(x)) return false;
        }
        return true;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const k in v) if (!jsonExact((v as Record<string, unknown>)[k])) return false;
      return true;
    }
    default:
      return false;
  }
}

/** A number JSON writes as it is: finite, and not -0 (which JSON reads back as 0). */
const finiteNotMinusZero = (x: number) => x - x === 0 && (x !== 0 || 1 / x > 0);

export class Packs {
  constructor(private kv: Deno.Kv) {}

  /** The collection's pack, if it holds the collection as it is, and its write count. */
  async state(ref: CollectionRef): Promise<PackState> {
    const [meta, stamp] = await this.kv.getMany<[PackMeta, Deno.KvU64]>([metaKey(ref), stampKey(ref)]);
    const count = stamp.value ? Number(stamp.value.value) : 0;
    const recorded = meta.value && typeof meta.value.segments === "string" ? meta.value : null;
    return {
      ready: recorded && recorded.format === PACK_FORMAT && recorded.count === count ? recorded : null,
      recorded,
      metaStamp: meta.versionstamp,
      countStamp: stamp.versionstamp,
      count,
    };
  }

  /**
   * The pack's documents, page by page: each segment's pages listed as a key range (KV lists a range about
   * five times faster than it gets the same keys by name), read ahead while earlier pages are decoded. Its
   * pages never change; they go only once a newer pack is ready, so a read that finds one missing was
   * overtaken by writes and a whole read since (409). With `projection`, only those fields are decoded.
   */
  async *pages(ref: CollectionRef, pack: PackMeta, projection?: string[]): AsyncGenerator<Doc[]> {
    for await (const page of this.columns(ref, pack)) yield projectedDocuments(page, projection) as Doc[];
  }

  /** The pack's column pages (core/column_pages.ts), read as `pages` reads them. */
  async *columns(ref: CollectionRef, pack: PackMeta): AsyncGenerator<ColumnPage> {
    let docs = 0;
    const runs = segmentsOf(pack).map((s) => [s.token, s.pages] as const);
    for await (const page of readAhead(this.#listed<ColumnPage>(columnsPrefix(ref), runs), READ_AHEAD)) {
      if (page === null) throw this.#overtaken(ref);
      docs += page.n;
      yield page;
    }
    if (docs !== pack.docs) throw this.#overtaken(ref);
  }

  /** Every value under `prefix` in these runs (token, count), in order; a missing one as null, then nothing. */
  async *#listed<T>(prefix: Deno.KvKey, runs: (readonly [string, number])[]): AsyncGenerator<T | null> {
    for (const [token, count] of runs) {
      let i = 0;
      for await (const e of this.kv.list<T>({ prefix: [...prefix, token] }, { batchSize: PAGES_PER_READ })) {
        if (e.key[e.key.length - 1] !== i) break;
        yield e.value;
        i++;
      }
      if (i !== count) return yield null;
    }
  }

  #overtaken(ref: CollectionRef): ConflictError {
    return new ConflictError(`collection '${ref.collection}' was rewritten while it was read; try again`);
  }

  /** A pack being made from `state`: a new one, or a segment more for the ready one. */
  builder(ref: CollectionRef, state: PackState, extend: boolean): PackBuilder {
    return new PackBuilder(this.kv, ref, state, extend ? state.ready : null);
  }

  /** Whether the ready pack can take one segment more. */
  static extensible(pack: PackMeta): boolean {
    return segmentsOf(pack).length < MAX_SEGMENTS;
  }

  /** Deletes the pages of these segments' tokens (of every segment when null: the collection's drop). */
  async sweep(ref: CollectionRef, tokens: string[] | null): Promise<void> {
    const prefixes = [...olderPrefixes(ref), columnsPrefix(ref)];
    const selectors = prefixes.flatMap((prefix) =>
      tokens === null ? [{ prefix }] : tokens.map((t) => ({ prefix: [...prefix, t] }))
    );
    for (const selector of selectors) {
      let op = this.kv.atomic();
      let n = 0;
      for await (const e of this.kv.list(selector, { batchSize: PAGES_PER_LIST })) {
        op.delete(e.key);
        if (++n % MAX_MUTATIONS === 0) {
          await commitRetrying(() => op);
          op = this.kv.atomic();
        }
      }
      if (n % MAX_MUTATIONS) await commitRetrying(() => op);
    }
  }

  /** Drops the collection's pack: its record first (so nothing reads it), then its pages. */
  async drop(ref: CollectionRef): Promise<void> {
    await commitRetrying(() => countWrite(this.kv.atomic().delete(metaKey(ref)), ref));
    await this.sweep(ref, null);
  }
}

/**
 * Writes pages as documents are added (a commit of pages while the next fill), and declares the pack
 * ready at `finish` when the collection's write count is still what it expects. Nothing it writes is
 * read before then: pages past the record's count are never listed.
 */
export class PackBuilder {
  /** This maker's own segment: its token (no other maker's) and the pages written under it. */
  readonly #token = newId();
  #pages = 0;
  /** The segments of the pack extended ("" for a new pack). */
  readonly #base: string;
  #docs: number;
  #lastId: string;
  /** Documents for the next pages and their bytes (docBytes); pages made and not yet committed. */
  #next: Doc[] = [];
  #nextBytes = 0;
  #made: ColumnPage[] = [];
  #writing: Promise<void> = Promise.resolve();
  #failed = false;

  constructor(
    private kv: Deno.Kv,
    private ref: CollectionRef,
    private state: PackState,
    base: PackMeta | null,
  ) {
    this.#base = base?.segments ?? "";
    this.#docs = base?.docs ?? 0;
    this.#lastId = base?.lastId ?? "";
  }

  /** Takes the next documents, in id order; commits pages once enough are made. Never throws. */
  add(docs: readonly Doc[]): void {
    if (this.#failed) return;
    try {
      for (const d of docs) {
        if (!jsonExact(d)) return void this.#fail("a document holds a value JSON does not keep");
        this.#next.push(d);
        this.#nextBytes += docBytes(d);
        if (this.#nextBytes >= FILL_BYTES) this.#makePages();
        this.#lastId = d._id;
      }
      this.#docs += docs.length;
    } catch (err) {
      this.#fail(err); // the documents are written all the same: only the pack is not made
    }
  }

  /**
   * Declares the pack ready for write count `count` (the count at the start, or that plus the commits
   * the caller made itself), in a commit that checks the count has not moved since and the record is as
   * it was read; then deletes the segments of the pack it replaces. False when it is not declared (a
   * write won): its own segment is deleted then.
   */
  async finish(count: number, countStamp: string | null): Promise<boolean> {
    try {
      this.#makePages();
    } catch (err) {
      this.#fail(err);
    }
    this.#commitPages();
    await this.#writing;
    if (this.#failed) return await this.abandon();
    const own = this.#pages ? `${this.#token}:${this.#pages}` : "";
    const meta: PackMeta = {
      format: PACK_FORMAT,
      segments: [this.#base, own].filter(Boolean).join(","),
      docs: this.#docs,
      lastId: this.#lastId,
      count,
    };
    let declared: boolean;
    try {
      declared = await commitRetrying(() =>
        this.kv.atomic()
          .check({ key: stampKey(this.ref), versionstamp: countStamp })
          .check({ key: metaKey(this.ref), versionstamp: this.state.metaStamp })
          .set(metaKey(this.ref), meta)
      );
    } catch (err) {
      this.#fail(err); // whether it was declared is not known: its pages stay (at worst until the drop)
      return false;
    }
    if (!declared) return await this.abandon();
    const replaced = this.state.recorded && !this.#base ? segmentsOf(this.state.recorded) : [];
    await this.#sweep(replaced.map((s) => s.token));
    return true;
  }

  /** Stops (the reader left, or the pack is not to be): waits for the commit under way, deletes its segment. */
  async abandon(): Promise<false> {
    this.#failed = true;
    await this.#writing;
    await this.#sweep([this.#token]);
    return false;
  }

  /** Deletes these segments' pages; a failure is logged (the pages stay until the collection's drop). */
  async #sweep(tokens: string[]): Promise<void> {
    if (tokens.length) await new Packs(this.kv).sweep(this.ref, tokens).catch((err) => this.#fail(err));
  }

  /** Makes the collected documents' pages; one document too large for a page leaves the pack unmade. */
  #makePages(): void {
    if (this.#failed || !this.#next.length) return;
    const pages = columnPages(this.#next);
    this.#next = [];
    this.#nextBytes = 0;
    if (pages.some((p) => pageBytes(p) > PAGE_BYTES)) {
      return void this.#fail("a document too large for a page");
    }
    this.#made.push(...pages);
    if (this.#made.length >= PAGES_A_COMMIT) this.#commitPages();
  }

  /** Commits the pages made after the commit under way: one in flight, the next filling meanwhile. */
  #commitPages(): void {
    if (this.#failed || !this.#made.length) return;
    const op = this.kv.atomic(), first = this.#pages;
    this.#made.forEach((p, i) => op.set([...columnsPrefix(this.ref), this.#token, first + i], p));
    this.#pages += this.#made.length;
    this.#made = [];
    this.#writing = this.#writing.then(async () => {
      if (this.#failed) return;
      await commitRetrying(() => op).catch((err) => this.#fail(err));
    });
  }

  #fail(err: unknown): false {
    if (!this.#failed) {
      log("warn", "collection pack not made", { collection: this.ref.collection, error: String(err) });
    }
    this.#failed = true;
    return false;
  }
}
