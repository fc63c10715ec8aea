/** What fields a handful of documents carry: their type, how many have them, an example. */
import { type ValueType, valueType, widen } from "./values.ts";

export interface FieldProfile {
  name: string;
  type: ValueType | "mixed";
  count: number;
  example: unknown;
}

/** Profiles the top-level fields of sampled documents (`_id` left out), in first-seen order. */
export function profileFields(docs: Record<string, unknown>[]): FieldProfile[] {
  const out = new Map<string, FieldProfile>();
  for (const d of docs) {
    for (const [name, v] of Object.entries(d)) {
      if (name === "_id") continue;
      const f = out.get(name) ?? { name, type: "null", count: 0, example: null };
      f.type = widen(f.type, valueType(v));
      if (v !== null && v !== undefined) {
        f.count++;
        if (f.example === null) f.example = v;
      }
      out.set(name, f);
    }
  }
  return [...out.values()];
}
