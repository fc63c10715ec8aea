/**
 * Packs: a KV collection's documents kept a second time, in id order, as column pages of a few hundred
 * documents (store/column_pages.ts: one KV value each, under KV's 64 KiB; numbers and lists of 32-bit ids as
 * typed arrays, anything else as JSON, each document's fields and their order kept), so that a whole read
 * lists a page where it would list a document, and an audit's read copies arrays (`columns`) instead of
 * parsing documents. KV spends about the same time on every entry it lists, whatever its size, so fewer,
 * larger entries read faster (BENCHMARKS.md, "Packs").
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
import { commitRetrying } from "./kv_limits.ts";
import { readAhead } from "./read_ahead.ts";
import type { CollectionRef, Doc } from "./store.ts";
import { type ColumnPage, projectedDocuments } from "./column_pages.ts";
import { PackBuilder } from "./kv_pack_builder.ts";
import {
  columnsPrefix,
  countWrite,
  MAX_SEGMENTS,
  metaKey,
  PACK_FORMAT,
  type PackMeta,
  type PackState,
  PAGES_PER_READ,
  READ_AHEAD,
  segmentsOf,
  stampKey,
  sweepSegments,
} from "./kv_pack_layout.ts";

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

  /** The pack's column pages (store/column_pages.ts), read as `pages` reads them. */
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
  sweep(ref: CollectionRef, tokens: string[] | null): Promise<void> {
    return sweepSegments(this.kv, ref, tokens);
  }

  /** Drops the collection's pack: its record first (so nothing reads it), then its pages. */
  async drop(ref: CollectionRef): Promise<void> {
    await commitRetrying(() => countWrite(this.kv.atomic().delete(metaKey(ref)), ref));
    await this.sweep(ref, null);
  }
}
