/**
 * Packs: a KV collection's documents kept a second time, in id order, as pages of a few hundred documents
 * (one KV value each: their JSON array, under KV's 64 KiB), so that a whole read lists a page where it
 * would list a document. KV spends 15-28 µs on every entry it lists, whatever its size: a pack reads
 * 206,418 documents of a hundred region ids each in about a third of the time (BENCHMARKS.md, "Packs").
 * JSON, not KV's own V8 serialisation, because V8 writes numbers it has read back as doubles, 70 % more
 * bytes and twice the time to read; and documents are JSON (store.ts), which jsonExact checks.
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
 * never names a deleted page.
 *
 * Each segment also keeps its documents as column pages (core/column_pages.ts: numbers and 32-bit id lists
 * as typed arrays, `["packcol", db, collection, t, i]`), so an audit's read copies arrays instead of parsing
 * JSON (`columnPages`); a segment holding a document too large for a column page has none, and its pack's
 * readers stream the JSON pages.
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
} from "../core/column_pages.ts";

/**
 * A page's characters and a commit's: V8 writes a string outside Latin-1 in two bytes a character, so
 * twice these stay under KV's 64 KiB a value and 800 KiB a commit.
 */
const PAGE_CHARS = 30_000;
const COMMIT_CHARS = 360_000;
/**
 * The fewest documents worth a pack: a new one is begun by an insert of this many or more, or by a whole
 * read that lists this many (listing fewer one by one takes a few tens of milliseconds at most).
 */
export const MIN_PACK_DOCS = 1000;
/** Pages listed per KV round trip when sweeping. */
const PAGES_PER_LIST = 16;
/** Column pages a commit holds (each under PAGE_BYTES; a commit holds 800 KiB). */
const COLUMN_PAGES_A_COMMIT = 12;
/** Pages listed per KV round trip when reading (~30 KB each), and how many are read ahead of the parser. */
const PAGES_PER_READ = 64;
const READ_AHEAD = 128;
/**
 * Segments a pack is extended to at most (an import of 1,000 rows a batch adds one a batch, so 2,000,000
 * rows); past it the pack goes stale and the next whole read makes one of a single segment. Their list,
 * ~28 characters a segment, stays under KV's 64 KiB a value.
 */
export const MAX_SEGMENTS = 2000;

/** What a ready pack says of itself. */
export interface PackMeta {
  /**
   * Its segments in order, "token:pages" joined by commas: segment t's pages are
   * `["packpage", db, collection, t, 0..pages-1]`.
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
const pagesPrefix = (ref: CollectionRef): Deno.KvKey => ["packpage", ref.db, ref.collection];
const columnsPrefix = (ref: CollectionRef): Deno.KvKey => ["packcol", ref.db, ref.collection];

/** A segment of a pack: its token, its JSON pages, and its column pages (null: it has none). */
export interface Segment {
  token: string;
  pages: number;
  columns: number | null;
}

/** A pack's segments ("token:pages" or "token:pages:column pages", by commas). */
export function segmentsOf(pack: PackMeta): Segment[] {
  if (!pack.segments) return [];
  return pack.segments.split(",").map((s) => {
    const [token, pages, columns] = s.split(":");
    return { token, pages: Number(pages), columns: columns === undefined ? null : Number(columns) };
  });
}

const pageKey = (ref: CollectionRef, token: string, i: number): Deno.KvKey => [
  ...pagesPrefix(ref),
  token,
  i,
];

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
      return Number.isFinite(v) && !Object.is(v, -0);
    case "object": {
      if (v === null) return true;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) if (!(i in v) || !jsonExact(v[i])) return false;
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

export class Packs {
  constructor(private kv: Deno.Kv) {}

  /** The collection's pack, if it holds the collection as it is, and its write count. */
  async state(ref: CollectionRef): Promise<PackState> {
    const [meta, stamp] = await this.kv.getMany<[PackMeta, Deno.KvU64]>([metaKey(ref), stampKey(ref)]);
    const count = stamp.value ? Number(stamp.value.value) : 0;
    const recorded = meta.value && typeof meta.value.segments === "string" ? meta.value : null;
    return {
      ready: recorded && recorded.count === count ? recorded : null,
      recorded,
      metaStamp: meta.versionstamp,
      countStamp: stamp.versionstamp,
      count,
    };
  }

  /**
   * The pack's documents, page by page: each segment's pages listed as a key range (KV lists a range about
   * five times faster than it gets the same keys by name), read ahead while earlier pages are parsed. Its
   * pages never change; they go only once a newer pack is ready, so a read that finds one missing was
   * overtaken by writes and a whole read since (409).
   */
  async *pages(ref: CollectionRef, pack: PackMeta): AsyncGenerator<Doc[]> {
    let docs = 0;
    const runs = segmentsOf(pack).map((s) => [s.token, s.pages] as const);
    for await (const page of readAhead(this.#listed<string>(pagesPrefix(ref), runs), READ_AHEAD)) {
      if (page === null) throw this.#overtaken(ref);
      const parsed = JSON.parse(page) as Doc[];
      docs += parsed.length;
      yield parsed;
    }
    if (docs !== pack.docs) throw this.#overtaken(ref);
  }

  /**
   * The pack's documents as column pages (core/column_pages.ts), read as `pages` reads its JSON pages;
   * null when a segment has none (made before column pages, or holding a document too large for one).
   */
  columns(ref: CollectionRef, pack: PackMeta): AsyncGenerator<ColumnPage> | null {
    const segments = segmentsOf(pack);
    if (segments.some((s) => s.columns === null)) return null;
    return this.#columns(ref, segments, pack.docs);
  }

  async *#columns(ref: CollectionRef, segments: Segment[], expected: number): AsyncGenerator<ColumnPage> {
    let docs = 0;
    const runs = segments.map((s) => [s.token, s.columns!] as const);
    for await (const page of readAhead(this.#listed<ColumnPage>(columnsPrefix(ref), runs), READ_AHEAD)) {
      if (page === null) throw this.#overtaken(ref);
      docs += page.n;
      yield page;
    }
    if (docs !== expected) throw this.#overtaken(ref);
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
    const prefixes = [pagesPrefix(ref), columnsPrefix(ref)];
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
  /** The page being filled: its documents' JSON texts, and their characters. */
  #page: string[] = [];
  #pageChars = 0;
  /** Full pages not yet committed (JSON arrays), and their characters. */
  #full: string[] = [];
  #fullChars = 0;
  #writing: Promise<void> = Promise.resolve();
  #failed = false;
  /** Documents for the next column pages and their bytes (docBytes); column pages not yet committed. */
  #colDocs: Doc[] = [];
  #colBytes = 0;
  #colFull: ColumnPage[] = [];
  #colPages = 0;
  /** No column pages for this segment (a document too large for one): its JSON pages serve alone. */
  #colFailed = false;

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

  /** Takes the next documents, in id order; commits pages once enough are full. Never throws. */
  add(docs: readonly Doc[]): void {
    if (this.#failed) return;
    try {
      for (const d of docs) {
        if (!jsonExact(d)) return void this.#fail("a document holds a value JSON does not keep");
        const text = JSON.stringify(d);
        if (this.#page.length && this.#pageChars + text.length > PAGE_CHARS) this.#close();
        this.#page.push(text);
        this.#pageChars += text.length + 1;
        this.#lastId = d._id;
        if (!this.#colFailed) this.#toColumns(d);
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
    if (this.#page.length) this.#close();
    this.#closeColumns();
    this.#commitFull();
    this.#commitColumns();
    await this.#writing;
    if (this.#failed) return await this.abandon();
    const columns = this.#colFailed ? "" : `:${this.#colPages}`;
    const own = this.#pages ? `${this.#token}:${this.#pages}${columns}` : "";
    const meta: PackMeta = {
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

  #close(): void {
    this.#full.push(`[${this.#page.join(",")}]`);
    this.#fullChars += this.#pageChars;
    this.#page = [];
    this.#pageChars = 0;
    if (this.#fullChars >= COMMIT_CHARS) this.#commitFull();
  }

  /**
   * Commits the full pages after the commit under way: one in flight, the next filling meanwhile.
   */
  #commitFull(): void {
    if (!this.#full.length) return;
    const pages = this.#full;
    const op = this.#pageOp(pages, this.#pages);
    this.#pages += pages.length;
    this.#full = [];
    this.#fullChars = 0;
    this.#writing = this.#writing.then(async () => {
      if (this.#failed) return;
      await commitRetrying(() => op).catch((err) => this.#fail(err));
    });
  }

  /** Takes a document for the column pages: pages are made once about a page's worth is collected. */
  #toColumns(d: Doc): void {
    this.#colDocs.push(d);
    this.#colBytes += docBytes(d);
    if (this.#colBytes >= FILL_BYTES) this.#closeColumns();
  }

  /** Makes the collected documents' column pages; one that would not fit a KV value ends them. */
  #closeColumns(): void {
    if (this.#colFailed || !this.#colDocs.length) return;
    const pages = columnPages(this.#colDocs);
    this.#colDocs = [];
    this.#colBytes = 0;
    if (pages.some((p) => pageBytes(p) > PAGE_BYTES)) {
      this.#colFailed = true;
      this.#colFull = [];
      return;
    }
    this.#colFull.push(...pages);
    if (this.#colFull.length >= COLUMN_PAGES_A_COMMIT) this.#commitColumns();
  }

  /** Commits the column pages made, after the commit under way (as #commitFull). */
  #commitColumns(): void {
    if (this.#colFailed || !this.#colFull.length) return;
    const op = this.kv.atomic(), first = this.#colPages;
    this.#colFull.forEach((p, i) => op.set([...columnsPrefix(this.ref), this.#token, first + i], p));
    this.#colPages += this.#colFull.length;
    this.#colFull = [];
    this.#writing = this.#writing.then(async () => {
      if (this.#failed) return;
      await commitRetrying(() => op).catch((err) => this.#fail(err));
    });
  }

  #pageOp(pages: string[], first: number): Deno.AtomicOperation {
    const op = this.kv.atomic();
    pages.forEach((p, i) => op.set(pageKey(this.ref, this.#token, first + i), p));
    return op;
  }

  #fail(err: unknown): false {
    if (!this.#failed) {
      log("warn", "collection pack not made", { collection: this.ref.collection, error: String(err) });
    }
    this.#failed = true;
    return false;
  }
}
