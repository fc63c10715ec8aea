/**
 * The embedded store: Deno KV on a local file (managed KV on Deno Deploy). Key layout:
 * `["doc", db, collection, _id] → document`. KV keys sort, so listing a prefix walks ids in order.
 */
import {
  type BulkResult,
  changes,
  type CollectionRef,
  type Doc,
  type FieldUpdate,
  type Filter,
  matches,
  project,
  type Store,
  type StreamOptions,
} from "./store.ts";
import { newId } from "./ids.ts";

/** KV's own ceilings: mutations and bytes per atomic commit, keys per getMany. */
const MAX_MUTATIONS = 500;
const MAX_BYTES = 600_000;
const GET_MANY = 10;

export class KvStore implements Store {
  readonly kind = "kv" as const;
  private constructor(private kv: Deno.Kv) {}

  /** Opens (and creates) the KV file at `path`; `undefined` opens the platform default (Deno Deploy). */
  static async open(path?: string): Promise<KvStore> {
    if (path && path !== ":memory:") {
      const dir = path.replace(/[^/\\]*$/, "");
      if (dir) await Deno.mkdir(dir, { recursive: true });
    }
    return new KvStore(await Deno.openKv(path));
  }

  private key(ref: CollectionRef, id?: string): Deno.KvKey {
    return id === undefined ? ["doc", ref.db, ref.collection] : ["doc", ref.db, ref.collection, id];
  }

  async get(ref: CollectionRef, id: string): Promise<Doc | null> {
    return (await this.kv.get<Doc>(this.key(ref, id))).value;
  }

  async put(ref: CollectionRef, doc: Doc): Promise<void> {
    await this.kv.set(this.key(ref, doc._id), doc);
  }

  async patch(ref: CollectionRef, id: string, set: Record<string, unknown>): Promise<Doc | null> {
    for (;;) {
      const cur = await this.kv.get<Doc>(this.key(ref, id));
      if (!cur.value) return null;
      const next = { ...cur.value, ...set, _id: id };
      const res = await this.kv.atomic().check(cur).set(this.key(ref, id), next).commit();
      if (res.ok) return next;
    }
  }

  async compareAndSet(
    ref: CollectionRef,
    id: string,
    expected: Filter,
    set: Record<string, unknown>,
  ): Promise<Doc | null> {
    for (;;) {
      const cur = await this.kv.get<Doc>(this.key(ref, id));
      if (!cur.value || !matches(cur.value, expected)) return null;
      const next = { ...cur.value, ...set, _id: id };
      // the versionstamp check makes read-compare-write one step: a concurrent writer fails us, we re-read
      const res = await this.kv.atomic().check(cur).set(this.key(ref, id), next).commit();
      if (res.ok) return next;
    }
  }

  async delete(ref: CollectionRef, id: string): Promise<boolean> {
    const key = this.key(ref, id);
    const cur = await this.kv.get(key);
    if (cur.value === null) return false;
    await this.kv.delete(key);
    return true;
  }

  async insertMany(ref: CollectionRef, docs: Record<string, unknown>[]): Promise<string[]> {
    const withIds = docs.map((d) => ({ ...d, _id: typeof d._id === "string" ? d._id : newId() }) as Doc);
    await this.commitInChunks(withIds.map((d) => [this.key(ref, d._id), d]));
    return withIds.map((d) => d._id);
  }

  async deleteMany(ref: CollectionRef, ids: string[]): Promise<number> {
    let n = 0;
    for (let i = 0; i < ids.length; i += GET_MANY) {
      const keys = ids.slice(i, i + GET_MANY).map((id) => this.key(ref, id));
      const found = (await this.kv.getMany(keys)).filter((e) => e.value !== null);
      n += found.length;
      const op = this.kv.atomic();
      for (const e of found) op.delete(e.key);
      await op.commit();
    }
    return n;
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

  async *stream(ref: CollectionRef, opts: StreamOptions = {}): AsyncIterable<Doc[]> {
    const size = opts.batchSize ?? 1000;
    let batch: Doc[] = [];
    for await (const e of this.kv.list<Doc>({ prefix: this.key(ref) }, { batchSize: Math.min(size, 1000) })) {
      batch.push(project(e.value, opts.projection));
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }

  async updateFields(ref: CollectionRef, updates: FieldUpdate[]): Promise<BulkResult> {
    const result: BulkResult = { matched: 0, modified: 0, missing: [] };
    const writes: [Deno.KvKey, Doc][] = [];
    for (let i = 0; i < updates.length; i += GET_MANY) {
      const part = updates.slice(i, i + GET_MANY);
      const found = await this.kv.getMany<Doc[]>(part.map((u) => this.key(ref, u.id)));
      part.forEach((u, j) => {
        const doc = found[j].value;
        if (!doc) return void result.missing.push(u.id);
        result.matched++;
        if (!changes(doc, u.set)) return;
        result.modified++;
        writes.push([found[j].key, { ...doc, ...u.set, _id: doc._id }]);
      });
      if (writes.length >= MAX_MUTATIONS) await this.commitInChunks(writes.splice(0));
    }
    await this.commitInChunks(writes);
    return result;
  }

  async dropCollection(ref: CollectionRef): Promise<void> {
    const keys: Deno.KvKey[] = [];
    for await (const e of this.kv.list({ prefix: this.key(ref) }, { batchSize: 1000 })) keys.push(e.key);
    for (let i = 0; i < keys.length; i += MAX_MUTATIONS) {
      const op = this.kv.atomic();
      for (const k of keys.slice(i, i + MAX_MUTATIONS)) op.delete(k);
      await op.commit();
    }
  }

  async ping(): Promise<void> {
    await this.kv.get(["ping"]);
  }

  close(): Promise<void> {
    this.kv.close();
    return Promise.resolve();
  }

  /** Writes entries in as few atomic commits as KV's per-commit limits allow. */
  private async commitInChunks(entries: [Deno.KvKey, unknown][]): Promise<void> {
    let op = this.kv.atomic();
    let count = 0;
    let bytes = 0;
    for (const [key, value] of entries) {
      const size = JSON.stringify(value).length + 64;
      if (count > 0 && (count >= MAX_MUTATIONS || bytes + size > MAX_BYTES)) {
        await op.commit();
        op = this.kv.atomic();
        count = bytes = 0;
      }
      op.set(key, value);
      count++;
      bytes += size;
    }
    if (count) await op.commit();
  }
}
