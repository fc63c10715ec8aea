/**
 * The embedded store: Deno KV on a local file (managed KV on Deno Deploy). Key layout:
 * `["doc", db, collection, _id] → document`; KV keys sort, so listing a prefix walks ids in order. Beside
 * them, per collection, its write count `["stamp", db, collection]` and its pack (`["packmeta", …]`,
 * `["colpage", …]`: the documents again in column pages, for whole reads; kv_pack.ts). Its commits,
 * within KV's limits, are kv_commits.ts.
 */
import type { ColumnPage } from "./column_pages.ts";
import {
  type BulkResult,
  changes,
  type CollectionRef,
  type Doc,
  DuplicateIdError,
  type FieldUpdate,
  type Filter,
  type InsertOptions,
  matches,
  project,
  refuseTooDeep,
  type Store,
  type StoreLocation,
  type StreamOptions,
  updated,
} from "./store.ts";
import { newId } from "./ids.ts";
import { ascendingAfter, Packs } from "./kv_pack.ts";
import type { PackBuilder } from "./kv_pack_builder.ts";
import { countWrite, MIN_PACK_DOCS, type PackState } from "./kv_pack_layout.ts";
import { commitRetrying, GET_MANY, keyBytes, MAX_CHECKS, MAX_KEY_BYTES, MAX_MUTATIONS } from "./kv_limits.ts";
import { chunkEnd, commitGuarded, commitInChunks, type LastCommit, type Write } from "./kv_commits.ts";

export class KvStore implements Store {
  readonly kind = "kv" as const;
  private packs: Packs;
  private constructor(private kv: Deno.Kv, readonly location: StoreLocation | null) {
    this.packs = new Packs(kv);
  }

  /** Opens (and creates) the KV file at `path`; `undefined` opens the platform default (Deno Deploy). */
  static async open(path?: string): Promise<KvStore> {
    if (path && path !== ":memory:") {
      const dir = path.replace(/[^/\\]*$/, "");
      if (dir) await Deno.mkdir(dir, { recursive: true });
    }
    const file = path && path !== ":memory:" ? { kind: "kv" as const, path } : null;
    return new KvStore(await Deno.openKv(path), file);
  }

  private key(ref: CollectionRef, id?: string): Deno.KvKey {
    return id === undefined ? ["doc", ref.db, ref.collection] : ["doc", ref.db, ref.collection, id];
  }

  async get(ref: CollectionRef, id: string): Promise<Doc | null> {
    return (await this.kv.get<Doc>(this.key(ref, id))).value;
  }

  async put(ref: CollectionRef, doc: Doc): Promise<void> {
    refuseTooDeep([doc]);
    await commitRetrying(() => countWrite(this.kv.atomic().set(this.key(ref, doc._id), doc), ref));
  }

  async patch(ref: CollectionRef, id: string, set: Record<string, unknown>): Promise<Doc | null> {
    refuseTooDeep([set]);
    for (;;) {
      const cur = await this.kv.get<Doc>(this.key(ref, id));
      if (!cur.value) return null;
      const next = { ...cur.value, ...set, _id: id };
      const op = countWrite(this.kv.atomic().check(cur).set(this.key(ref, id), next), ref);
      if (await commitRetrying(() => op)) return next;
    }
  }

  async compareAndSet(
    ref: CollectionRef,
    id: string,
    expected: Filter,
    set: Record<string, unknown>,
  ): Promise<Doc | null> {
    refuseTooDeep([set]);
    for (;;) {
      const cur = await this.kv.get<Doc>(this.key(ref, id));
      if (!cur.value || !matches(cur.value, expected)) return null;
      const next = { ...cur.value, ...set, _id: id };
      // the versionstamp check makes read-compare-write one step: a concurrent writer fails us, we re-read
      const op = countWrite(this.kv.atomic().check(cur).set(this.key(ref, id), next), ref);
      if (await commitRetrying(() => op)) return next;
    }
  }

  async delete(ref: CollectionRef, id: string): Promise<boolean> {
    const key = this.key(ref, id);
    const cur = await this.kv.get(key);
    if (cur.value === null) return false;
    await commitRetrying(() => countWrite(this.kv.atomic().delete(key), ref));
    return true;
  }

  /**
   * Insert-only: a caller's id is written only while its key is absent (a versionstamp check in the same
   * commit). Ids made here or listed in `opts.fresh` are unique by construction and skip the check.
   */
  async insertMany(
    ref: CollectionRef,
    docs: Record<string, unknown>[],
    opts: InsertOptions = {},
  ): Promise<string[]> {
    refuseTooDeep(docs);
    const seen = new Set<string>();
    const writes = docs.map((d, i): Write => {
      const given = typeof d._id === "string";
      // written as given (KV serialises the value, never keeps it); copied only to give it an id
      const doc = (given ? d : { ...d, _id: newId() }) as Doc;
      // checks within one commit all read the state before it, so a repeat inside the call is caught here
      if (given && seen.has(doc._id)) throw new DuplicateIdError(doc._id, i, 0);
      if (given) seen.add(doc._id);
      return { key: this.key(ref, doc._id), value: doc, absent: given && !opts.fresh?.has(doc._id) };
    });
    const ids = writes.map((w) => (w.value as Doc)._id);
    const state = await this.packs.state(ref);
    const extend = state.ready !== null && Packs.extensible(state.ready) &&
      ascendingAfter(ids, state.ready.lastId);
    const begin = !state.ready && ids.length >= MIN_PACK_DOCS && ascendingAfter(ids, "") &&
      await this.isEmpty(ref);
    if (!extend && !begin) {
      await commitInChunks(this.kv, ref, writes);
      return ids;
    }
    // the pages are made while KV commits the documents (on its own thread), and declared after them
    const last: LastCommit = { stamp: state.countStamp };
    const committing = commitInChunks(this.kv, ref, writes, last);
    const builder = this.packs.builder(ref, state, extend);
    builder.add(writes.map((w) => w.value as Doc));
    let commits: number;
    try {
      commits = await committing;
    } catch (err) {
      await builder.abandon();
      throw err;
    }
    // Declared for the count this insert's commits make, in a commit that checks the write count is still as
    // its last commit left it. A write that came between its commits, or before them, makes the count larger
    // than declared: the pack is then never read (Packs.state), and the next whole read makes one anew.
    await builder.finish(state.count + commits, last.stamp);
    return ids;
  }

  private async isEmpty(ref: CollectionRef): Promise<boolean> {
    for await (const _ of this.kv.list({ prefix: this.key(ref) }, { limit: 1 })) return false;
    return true;
  }

  async deleteMany(ref: CollectionRef, ids: string[]): Promise<number> {
    let n = 0;
    for (let i = 0; i < ids.length; i += GET_MANY) {
      const keys = ids.slice(i, i + GET_MANY).map((id) => this.key(ref, id));
      const found = (await this.kv.getMany(keys)).filter((e) => e.value !== null);
      n += found.length;
      if (!found.length) continue;
      const op = countWrite(this.kv.atomic(), ref);
      for (const e of found) op.delete(e.key);
      await commitRetrying(() => op);
    }
    return n;
  }

  async discard(ref: CollectionRef, ids: string[]): Promise<void> {
    // deleting a key that is absent is a no-op, so the keys go in blind, as many to a commit as KV takes
    let op = countWrite(this.kv.atomic(), ref), keys = 0, bytes = 0;
    for (const id of ids) {
      const key = this.key(ref, id), size = keyBytes(key);
      // the write count's key rides along in every commit: a kilobyte kept for it
      if (keys && (keys + 1 >= MAX_MUTATIONS || bytes + size > MAX_KEY_BYTES - 1024)) {
        const full = op;
        await commitRetrying(() => full);
        (op = countWrite(this.kv.atomic(), ref), keys = 0, bytes = 0);
      }
      op.delete(key);
      (keys++, bytes += size);
    }
    if (keys) await commitRetrying(() => op);
  }

  async list(ref: CollectionRef, filter?: Filter, opts: { limit?: number } = {}): Promise<Doc[]> {
    const out: Doc[] = [];
    for await (const e of this.kv.list<Doc>({ prefix: this.key(ref) }, { batchSize: 500 })) {
      if (!matches(e.value, filter)) continue;
      out.push(e.value);
      if (opts.limit !== undefined && out.length >= opts.limit) break;
    }
    return out;
  }

  async count(ref: CollectionRef, filter?: Filter): Promise<number> {
    if (!filter) {
      const { ready } = await this.packs.state(ref);
      if (ready) return ready.docs;
    }
    let n = 0;
    for await (const e of this.kv.list<Doc>({ prefix: this.key(ref) }, { batchSize: 1000 })) {
      if (matches(e.value, filter)) n++;
    }
    return n;
  }

  /** Reservoir sampling over one pass: KV has no random access by position. */
  async sample(ref: CollectionRef, n: number): Promise<Doc[]> {
    const out: Doc[] = [];
    let seen = 0;
    for await (const e of this.kv.list<Doc>({ prefix: this.key(ref) }, { batchSize: 1000 })) {
      seen++;
      if (out.length < n) out.push(e.value);
      else {
        const j = Math.floor(Math.random() * seen);
        if (j < n) out[j] = e.value;
      }
    }
    return out;
  }

  /** The current pack's column pages, when it has them (store/kv_pack.ts). */
  async columnPages(ref: CollectionRef): Promise<AsyncIterable<ColumnPage> | null> {
    const { ready } = await this.packs.state(ref);
    return ready ? this.packs.columns(ref, ready) : null;
  }

  async *stream(ref: CollectionRef, opts: StreamOptions = {}): AsyncIterable<Doc[]> {
    const size = opts.batchSize ?? 1000;
    let batch: Doc[] = [];
    for await (const docs of this.whole(ref, Math.min(size, 1000), opts.projection)) {
      for (const d of docs) {
        batch.push(project(d, opts.projection));
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
    }
    if (batch.length) yield batch;
  }

  /**
   * Every document in id order, a few hundred at a time: the pages of the collection's pack when it is
   * current (decoding only `projection`'s fields), else listed one by one, which makes a pack of them when
   * they are many (store/kv_pack.ts); `stream` projects either.
   */
  private async *whole(ref: CollectionRef, batchSize: number, projection?: string[]): AsyncGenerator<Doc[]> {
    const state = await this.packs.state(ref);
    if (state.ready) return yield* this.packs.pages(ref, state.ready, projection);
    let builder: PackBuilder | null = null;
    const first: Doc[] = []; // until there are enough for a pack
    let listed = false;
    try {
      let docs: Doc[] = [];
      for await (const e of this.kv.list<Doc>({ prefix: this.key(ref) }, { batchSize })) {
        docs.push(e.value);
        if (docs.length < batchSize) continue;
        builder = this.toPack(ref, state, builder, first, docs);
        yield docs;
        docs = [];
      }
      builder = this.toPack(ref, state, builder, first, docs);
      if (docs.length) yield docs;
      listed = true;
    } finally {
      if (builder && !listed) await builder.abandon();
    }
    if (builder) await builder.finish(state.count, state.countStamp);
  }

  /** Gives listed documents to the pack being made, begun once MIN_PACK_DOCS are listed. */
  private toPack(
    ref: CollectionRef,
    state: PackState,
    builder: PackBuilder | null,
    first: Doc[],
    docs: Doc[],
  ) {
    if (builder) builder.add(docs);
    else {
      first.push(...docs);
      if (first.length < MIN_PACK_DOCS) return null;
      builder = this.packs.builder(ref, state, false);
      builder.add(first.splice(0));
    }
    return builder;
  }

  /**
   * Each document is written only if it still holds the version read (as MongoDB's $set is atomic per
   * document): a commit that meets a document changed meanwhile reads its span again and redoes it, so
   * a concurrent write to other fields of the same document is never lost.
   */
  async updateFields(ref: CollectionRef, updates: FieldUpdate[]): Promise<BulkResult> {
    refuseTooDeep(updates.map((u) => u.set));
    const result: BulkResult = { matched: 0, modified: 0, missing: [] };
    let cap = MAX_CHECKS;
    for (let at = 0; at < updates.length;) {
      const part = updates.slice(at, at + MAX_CHECKS);
      const found = await this.getAll(part.map((u) => this.key(ref, u.id)));
      const writes: Write[] = [];
      const writeOf: number[] = []; // the update each write comes from
      const refused = new Set<number>(); // updates whose `where` does not match
      part.forEach((u, j) => {
        const doc = found[j].value;
        if (doc && u.where && !matches(doc, u.where) && changes(doc, u.set, u.unset)) refused.add(j);
        if (!doc || refused.has(j) || !changes(doc, u.set, u.unset)) return;
        writes.push({
          key: found[j].key,
          value: updated(doc, u.set, u.unset),
          stamp: found[j].versionstamp!,
        });
        writeOf.push(j);
      });
      const end = Math.min(chunkEnd(writes, 0), cap);
      const done = end === writes.length ? part.length : writeOf[end]; // updates this commit settles
      const outcome = await commitGuarded(this.kv, ref, writes.slice(0, end));
      if (outcome === "too large") cap = Math.max(1, end >> 1); // KV measured more than chunkEnd did
      if (outcome !== "ok") continue; // or a document changed since it was read: read again
      cap = MAX_CHECKS;
      for (let j = 0; j < done; j++) {
        if (!found[j].value) result.missing.push(part[j].id);
        else if (refused.has(j)) (result.skipped ??= []).push(part[j].id);
        else result.matched++;
      }
      result.modified += writeOf.filter((j) => j < done).length;
      at += done;
    }
    return result;
  }

  /** Values of `keys`, GET_MANY at a time (KV's limit per read). */
  private async getAll(keys: Deno.KvKey[]): Promise<Deno.KvEntryMaybe<Doc>[]> {
    const out: Deno.KvEntryMaybe<Doc>[] = [];
    for (let i = 0; i < keys.length; i += GET_MANY) {
      out.push(...await this.kv.getMany<Doc[]>(keys.slice(i, i + GET_MANY)));
    }
    return out;
  }

  async dropCollection(ref: CollectionRef): Promise<void> {
    await this.packs.drop(ref);
    const keys: Deno.KvKey[] = [];
    for await (const e of this.kv.list({ prefix: this.key(ref) }, { batchSize: 1000 })) keys.push(e.key);
    for (let i = 0; i < keys.length; i += MAX_MUTATIONS) {
      const op = countWrite(this.kv.atomic(), ref);
      for (const k of keys.slice(i, i + MAX_MUTATIONS)) op.delete(k);
      await commitRetrying(() => op);
    }
  }

  async ping(): Promise<void> {
    await this.kv.get(["ping"]);
  }

  close(): Promise<void> {
    this.kv.close();
    return Promise.resolve();
  }
}
