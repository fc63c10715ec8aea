/** What fields documents carry: their type, how many have them, an example. */
import { type ValueType, valueType, widen } from "./values.ts";

export interface FieldProfile {
  name: string;
  type: ValueType | "mixed";
  count: number;
  example: unknown;
}

/** Profiles top-level fields (`_id` left out) one document at a time, in first-seen order. */
export class FieldProfiler {
  private fields = new Map<string, FieldProfile>();

  /** Starts from known column types (a dataset that grows by another import). */
  constructor(known: { name: string; type: ValueType | "mixed" }[] = []) {
    for (const k of known) this.fields.set(k.name, { name: k.name, type: k.type, count: 0, example: null });
  }

  add(doc: Record<string, unknown>): void {
    // for-in over own fields: no array of pairs per document (this runs on every imported row)
    for (const name in doc) {
      if (name === "_id" || !Object.hasOwn(doc, name)) continue;
      const v = doc[name];
      let f = this.fields.get(name);
      if (!f) this.fields.set(name, f = { name, type: "null", count: 0, example: null });
      f.type = widen(f.type, valueType(v));
      if (v !== null && v !== undefined) {
        f.count++;
        if (f.example === null) f.example = v;
      }
    }
  }

  result(): FieldProfile[] {
    return [...this.fields.values()];
  }
}

/** Profiles a handful of documents at once. */
export function profileFields(docs: Record<string, unknown>[]): FieldProfile[] {
  const p = new FieldProfiler();
  for (const d of docs) p.add(d);
  return p.result();
}
