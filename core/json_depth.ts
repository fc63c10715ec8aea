/**
 * How deep JSON may nest. The store's serialisers (V8's for Deno KV, BSON for MongoDB) and the worker
 * pool's structured clone recurse, and overflow the stack a few thousand levels down; MongoDB refuses
 * documents past 100 levels. So every JSON value a request brings is limited to MAX_JSON_DEPTH levels of
 * objects and arrays (`{}` or `[]` is one level, a scalar none): a field of an imported row, a free-form
 * field of a request body. The check walks the value with its own stack, so any depth is measured safely.
 */

/** Levels of objects and arrays a JSON value may nest (docs/reliability.md, "Limits"). */
export const MAX_JSON_DEPTH = 64;

/** Where a too-deep value was met: keys and indexes from the value checked down to it. */
export type JsonPath = (string | number)[];

interface Frame {
  value: object;
  depth: number;
  key: string | number;
  parent: Frame | null;
}

/**
 * The path to the first object or array nested deeper than `max` levels within `value` (counting
 * `value` itself as level 1 when it is one), or null when it nests `max` levels or fewer.
 */
export function tooDeepAt(value: unknown, max: number = MAX_JSON_DEPTH): JsonPath | null {
  if (value === null || typeof value !== "object") return null;
  const stack: Frame[] = [{ value, depth: 1, key: "", parent: null }];
  while (stack.length) {
    const frame = stack.pop()!;
    if (frame.depth > max) return pathOf(frame);
    const v = frame.value;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) push(stack, v[i], i, frame);
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        push(stack, (v as Record<string, unknown>)[keys[i]], keys[i], frame);
      }
    }
  }
  return null;
}

function push(stack: Frame[], child: unknown, key: string | number, parent: Frame): void {
  if (child !== null && typeof child === "object") {
    stack.push({ value: child, depth: parent.depth + 1, key, parent });
  }
}

function pathOf(frame: Frame): JsonPath {
  const path: JsonPath = [];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) path.push(f.key);
  return path.reverse();
}

/** A path as a reader writes it (`x[0][0].k`), its first `shown` steps only. */
export function describePath(path: JsonPath, shown = 4): string {
  const steps = path.slice(0, shown).map((k, i) =>
    typeof k === "number"
      ? `[${k}]`
      : /^[A-Za-z_$][\w$]*$/.test(k)
      ? `${i ? "." : ""}${k}`
      : `[${JSON.stringify(k)}]`
  );
  return steps.join("") + (path.length > shown ? "…" : "");
}

/** The message of a value that nests too deep, naming where: "nests … (at x[0][0]…)". */
export function tooDeepMessage(path: JsonPath, max: number = MAX_JSON_DEPTH): string {
  const where = path.length ? ` (at ${describePath(path)})` : "";
  return `nests objects and arrays more than ${max} levels deep${where}`;
}

/** Whether no item of the list is an object or a list. */
function flat(list: unknown[]): boolean {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && typeof x === "object") return false;
  }
  return true;
}

/**
 * The first top-level field of a record whose value nests deeper than `max` levels, with the path
 * inside it; null when none does. The record itself is not a level of its fields.
 */
export function tooDeepField(
  record: Record<string, unknown>,
  max: number = MAX_JSON_DEPTH,
): { field: string; path: JsonPath } | null {
  // for-in over a plain record: no key array per record (this runs on every stored document)
  for (const field in record) {
    const v = record[field];
    if (v === null || typeof v !== "object" || !Object.hasOwn(record, field)) continue;
    if (max >= 1 && Array.isArray(v) && flat(v)) continue; // a list of scalars (region ids): one level
    const path = tooDeepAt(v, max);
    if (path) return { field, path };
  }
  return null;
}
