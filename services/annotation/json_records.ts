/**
 * Records whose JSON may outgrow one stored document (Deno KV takes at most 64 KiB a value): a small
 * head document carrying the fields to filter on, and the record itself as JSON text in numbered parts
 * of a sibling collection (`<collection>_parts`). The record's own keys never become field names in the
 * store, so user JSON with `$` or `.` in its keys is kept as sent on MongoDB too.
 */
import type { CollectionRef, Doc, Filter, Store } from "../../store/store.ts";

/** Characters of JSON text per part: at most 2 bytes each, well under KV's 64 KiB. */
const PART_CHARS = 16_000;

interface Head extends Doc {
  parts: number;
  version: string;
}

export class JsonRecords<R extends object> {
  private parts: CollectionRef;

  constructor(private store: Store, private ref: CollectionRef) {
    this.parts = { db: ref.db, collection: `${ref.collection}_parts` };
  }

  private partIds(head: Head): string[] {
    return Array.from({ length: head.parts }, (_, i) => `${head._id}#${head.version}#${i}`);
  }

  /**
   * Stores the record under `id` (replacing any), with `index` as the fields `list` filters on; true when
   * it replaced one. New parts go in before the head points at them; the old parts go last.
   */
  async put(id: string, index: Filter, record: R): Promise<boolean> {
    const prev = (await this.store.get(this.ref, id)) as Head | null;
    const text = JSON.stringify(record);
    const head: Head = {
      ...index,
      _id: id,
      parts: Math.max(1, Math.ceil(text.length / PART_CHARS)),
      version: crypto.randomUUID().slice(0, 8),
    };
    const ids = this.partIds(head);
    await this.store.insertMany(
      this.parts,
      ids.map((_id, i) => ({ _id, text: text.slice(i * PART_CHARS, (i + 1) * PART_CHARS) })),
    );
    await this.store.put(this.ref, head);
    if (prev) await this.store.deleteMany(this.parts, this.partIds(prev));
    return prev !== null;
  }

  /** The record stored under `id`, or null. */
  async get(id: string): Promise<R | null> {
    const head = (await this.store.get(this.ref, id)) as Head | null;
    return head ? await this.read(head) : null;
  }

  /** Every record whose index fields match the filter, in id order. */
  async list(filter: Filter): Promise<R[]> {
    const heads = ((await this.store.list(this.ref, filter)) as Head[])
      .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
    const out: (R | null)[] = await Promise.all(heads.map((h) => this.read(h)));
    return out.filter((r) => r !== null);
  }

  /** Joins a record's parts; when a concurrent put replaced them meanwhile, reads the new head instead. */
  private async read(head: Head, attempt = 0): Promise<R | null> {
    const parts = await Promise.all(this.partIds(head).map((id) => this.store.get(this.parts, id)));
    if (parts.every((p) => p !== null)) return JSON.parse(parts.map((p) => p!.text).join("")) as R;
    const again = (await this.store.get(this.ref, head._id)) as Head | null;
    if (!again || attempt >= 3) return null;
    return await this.read(again, attempt + 1);
  }
}
