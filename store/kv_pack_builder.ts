/**
 * Making a pack (kv_pack.ts): the documents an insert or a whole read goes through, in id order, made into
 * column pages under a segment of the maker's own and committed as they fill, then declared ready in a
 * commit that checks the collection's write count has not moved. Only documents JSON keeps exactly are
 * packed (jsonExact).
 */
import { log } from "../core/log.ts";
import { newId } from "./ids.ts";
import { commitRetrying } from "./kv_limits.ts";
import type { CollectionRef, Doc } from "./store.ts";
import { type ColumnPage, columnPages, docBytes, FILL_BYTES, PAGE_BYTES, pageBytes } from "./column_pages.ts";
import {
  columnsPrefix,
  metaKey,
  PACK_FORMAT,
  type PackMeta,
  type PackState,
  PAGES_A_COMMIT,
  segmentsOf,
  stampKey,
  sweepSegments,
} from "./kv_pack_layout.ts";

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
    if (tokens.length) await sweepSegments(this.kv, this.ref, tokens).catch((err) => this.#fail(err));
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
