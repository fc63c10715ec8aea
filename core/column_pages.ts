/**
 * Column pages: a run of documents held field by field as typed arrays, so a whole read of the columns an
 * analysis maps copies arrays instead of parsing JSON and walking objects (the embedded store keeps them
 * beside its JSON pages: store/kv_pack.ts). Only what decodes exactly is typed; anything else in a field
 * stays JSON, so a page always gives back each document's value of each field (missing and null alike
 * read as null: an analysis treats both as absent).
 */

/** A field whose values are numbers (NaN where a document has none, or null). */
export interface NumberColumn {
  kind: "number";
  values: Float64Array;
}

/** A field whose values are all non-empty lists of 32-bit non-negative integers (region ids). */
export interface ListColumn {
  kind: "lists";
  /** Document j's list is `items[start[j] .. start[j+1])`. */
  start: Int32Array;
  /** 16-bit when every id of the page fits (the usual case: half the bytes to write and read). */
  items: Int32Array | Uint16Array;
}

/** Any other field: its values as one JSON array (null where a document has none). */
export interface JsonColumn {
  kind: "json";
  text: string;
}

export type Column = NumberColumn | ListColumn | JsonColumn;

export interface ColumnPage {
  /** Documents in the page. */
  n: number;
  /** Their ids, in order. */
  ids: string[];
  /** Every field a document of the page has (`_id` aside), as [name, column]. */
  fields: [string, Column][];
}

/** Bytes a page may take at most once serialised: KV holds 64 KiB a value. */
export const PAGE_BYTES = 60_000;
/** Bytes a pager collects before it makes pages of them (docBytes undercounts a field that goes JSON). */
export const FILL_BYTES = 56_000;

/** Whether v is a 32-bit non-negative integer. */
const int32 = (v: unknown): v is number => typeof v === "number" && (v | 0) === v && v >= 0;

/** The column of one field over `docs`, in the narrowest kind that holds every value exactly. */
function columnOf(docs: readonly Record<string, unknown>[], name: string): Column {
  const values = docs.map((d) => Object.hasOwn(d, name) ? d[name] : null);
  if (values.every((v) => v === null || typeof v === "number")) {
    return { kind: "number", values: Float64Array.from(values, (v) => v === null ? NaN : v as number) };
  }
  if (values.every((v) => Array.isArray(v) && v.length > 0 && v.every(int32))) {
    const lists = values as number[][], start = new Int32Array(docs.length + 1);
    for (let j = 0; j < lists.length; j++) start[j + 1] = start[j] + lists[j].length;
    const narrow = lists.every((l) => l.every((id) => id <= 0xffff));
    const items = narrow ? new Uint16Array(start[docs.length]) : new Int32Array(start[docs.length]);
    for (let j = 0; j < lists.length; j++) items.set(lists[j], start[j]);
    return { kind: "lists", start, items };
  }
  return { kind: "json", text: JSON.stringify(values) };
}

/** One page of `docs` (JSON documents: no NaN, undefined or dates, which a pack never holds). */
export function columnPage(docs: readonly Record<string, unknown>[]): ColumnPage {
  const names = new Set<string>();
  for (const d of docs) for (const k of Object.keys(d)) if (k !== "_id") names.add(k);
  return {
    n: docs.length,
    ids: docs.map((d) => String(d._id)),
    fields: [...names].map((name) => [name, columnOf(docs, name)]),
  };
}

/**
 * About what a document adds to a page (8 bytes a number, 2 or 4 an id of a list, its JSON text otherwise):
 * what a pager fills a page by, before `pageBytes` says what the page takes.
 */
export function docBytes(doc: Record<string, unknown>): number {
  let bytes = 8 + String(doc._id).length;
  for (const [k, v] of Object.entries(doc)) {
    if (k === "_id") continue;
    if (typeof v === "number") bytes += 8;
    else if (Array.isArray(v) && v.every(int32)) {
      bytes += (v.every((id) => id <= 0xffff) ? 2 : 4) * v.length + 4;
    } else bytes += JSON.stringify(v ?? null).length + 1;
  }
  return bytes;
}

/** Bytes a page takes serialised, at most (strings counted at two bytes a character). */
export function pageBytes(page: ColumnPage): number {
  let bytes = 64;
  for (const id of page.ids) bytes += 2 * id.length + 8;
  for (const [name, c] of page.fields) {
    bytes += 2 * name.length + 64;
    if (c.kind === "number") bytes += c.values.byteLength;
    else if (c.kind === "lists") bytes += c.start.byteLength + c.items.byteLength;
    else bytes += 2 * c.text.length;
  }
  return bytes;
}

/** Pages of `docs`, each under PAGE_BYTES serialised: the page halved until it fits. */
export function columnPages(docs: readonly Record<string, unknown>[]): ColumnPage[] {
  const page = columnPage(docs);
  if (docs.length <= 1 || pageBytes(page) <= PAGE_BYTES) return [page];
  const half = docs.length >> 1;
  return [...columnPages(docs.slice(0, half)), ...columnPages(docs.slice(half))];
}

/** Each row's value of a column, null where a document has none. */
export function valuesOf(column: Column | undefined, n: number): unknown[] {
  if (!column) return new Array(n).fill(null);
  if (column.kind === "json") return JSON.parse(column.text);
  if (column.kind === "number") return Array.from(column.values, (v) => Number.isNaN(v) ? null : v);
  return Array.from(
    { length: n },
    (_, j) => Array.from(column.items.subarray(column.start[j], column.start[j + 1])),
  );
}
