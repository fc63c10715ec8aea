/**
 * Column pages: a run of documents held field by field, so a whole read of the columns an analysis maps
 * copies typed arrays instead of parsing JSON and walking objects (the embedded store's packs are made of
 * them: kv_pack.ts; a reader hands them to core as core/columns.ts's typed columns:
 * workers/tasks/dataset.ts). A field of numbers is a Float64Array, a field of lists of 32-bit ids two
 * integer arrays, anything else JSON; each document's shape (its fields, in order) is kept too, so the page
 * gives every document back as it was (`pageDocuments`).
 */
import { setOwn } from "../core/data_keys.ts";

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
  /**
   * The documents' shapes: each distinct order of fields, as indices into `fields` (-1 for `_id`), and
   * each document's shape; so a document comes back with the fields it had (null kept apart from
   * missing), in its order.
   */
  shapes: number[][];
  shapeOf: Uint16Array;
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
  return numberColumn(values) ?? listColumn(values) ?? { kind: "json", text: JSON.stringify(values) };
}

/** The values as numbers (NaN for null), or null when one is anything else. */
function numberColumn(values: readonly unknown[]): NumberColumn | null {
  const out = new Float64Array(values.length);
  for (let j = 0; j < values.length; j++) {
    const v = values[j];
    if (typeof v === "number") out[j] = v;
    else if (v === null) out[j] = NaN;
    else return null;
  }
  return { kind: "number", values: out };
}

/**
 * The values as lists of ids, or null when one is not a non-empty list of 32-bit non-negative integers: one
 * pass over the ids checks them, copies them and finds the largest (this runs on every imported row).
 */
function listColumn(values: readonly unknown[]): ListColumn | null {
  let total = 0;
  for (const v of values) {
    if (!Array.isArray(v) || v.length === 0) return null;
    total += v.length;
  }
  const start = new Int32Array(values.length + 1), items = new Int32Array(total);
  let at = 0, max = 0;
  for (let j = 0; j < values.length; j++) {
    const list = values[j] as unknown[];
    for (let k = 0; k < list.length; k++) {
      const id = list[k];
      if (!int32(id)) return null;
      items[at++] = id;
      if (id > max) max = id;
    }
    start[j + 1] = at;
  }
  return { kind: "lists", start, items: max <= 0xffff ? new Uint16Array(items) : items };
}

/**
 * One page of `docs`: JSON documents (no NaN, Infinity, -0, undefined or dates, which a pack never holds),
 * each with a string `_id`, at most 65,535 of them.
 */
export function columnPage(docs: readonly Record<string, unknown>[]): ColumnPage {
  const index = new Map<string, number>(), shapes: number[][] = [], shapeIndex = new Map<string, number>();
  const shapeOf = new Uint16Array(docs.length);
  docs.forEach((d, j) => {
    const shape = Object.keys(d).map((k) => {
      if (k === "_id") return -1;
      if (!index.has(k)) index.set(k, index.size);
      return index.get(k)!;
    });
    const key = shape.join(",");
    if (!shapeIndex.has(key)) (shapeIndex.set(key, shapes.length), shapes.push(shape));
    shapeOf[j] = shapeIndex.get(key)!;
  });
  return {
    n: docs.length,
    ids: docs.map((d) => d._id as string),
    fields: [...index.keys()].map((name) => [name, columnOf(docs, name)]),
    shapes,
    shapeOf,
  };
}

/** The page's documents as they were given to `columnPage`: the same fields, values and order. */
export function pageDocuments(page: ColumnPage): Record<string, unknown>[] {
  return projectedDocuments(page);
}

/**
 * The page's documents as `pageDocuments` gives them; with `keep`, only `_id` and those fields (the others
 * are never decoded: a read of ids or of one field does not build every document's lists).
 */
export function projectedDocuments(page: ColumnPage, keep?: readonly string[]): Record<string, unknown>[] {
  const kept = keep && new Set(keep);
  const values = page.fields.map(([name, c]) => !kept || kept.has(name) ? valuesOf(c, page.n) : null);
  const names = page.fields.map(([name]) => name);
  const docs: Record<string, unknown>[] = new Array(page.n);
  for (let j = 0; j < page.n; j++) {
    const doc: Record<string, unknown> = {};
    for (const f of page.shapes[page.shapeOf[j]]) {
      if (f < 0) doc._id = page.ids[j];
      else if (values[f]) setOwn(doc, names[f], values[f][j]);
    }
    docs[j] = doc;
  }
  return docs;
}

/**
 * About what a document adds to a page (8 bytes a number, 2 or 4 an id of a list, its JSON text otherwise):
 * what a pager fills a page by, before `pageBytes` says what the page takes.
 */
export function docBytes(doc: Record<string, unknown>): number {
  let bytes = 10 + String(doc._id).length;
  for (const [k, v] of Object.entries(doc)) {
    if (k === "_id") continue;
    if (typeof v === "number") bytes += 8;
    else bytes += Array.isArray(v) ? listBytes(v) : JSON.stringify(v ?? null).length + 1;
  }
  return bytes;
}

/** What a list adds to a page: 2 or 4 bytes an id when every item is one (in one pass), else its JSON. */
function listBytes(list: unknown[]): number {
  let max = 0;
  for (let k = 0; k < list.length; k++) {
    const id = list[k];
    if (!int32(id)) return JSON.stringify(list).length + 1;
    if (id > max) max = id;
  }
  return (max <= 0xffff ? 2 : 4) * list.length + 4;
}

/** Bytes a page takes serialised, at most (strings counted at two bytes a character). */
export function pageBytes(page: ColumnPage): number {
  let bytes = 64 + page.shapeOf.byteLength;
  for (const shape of page.shapes) bytes += 8 * shape.length + 16;
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
  if (docs.length > 0xffff) {
    return [...columnPages(docs.slice(0, docs.length >> 1)), ...columnPages(docs.slice(docs.length >> 1))];
  }
  const page = columnPage(docs);
  if (docs.length <= 1 || pageBytes(page) <= PAGE_BYTES) return [page];
  const half = docs.length >> 1;
  return [...columnPages(docs.slice(0, half)), ...columnPages(docs.slice(half))];
}

/** Each row's value of a column, null where a document has none. */
export function valuesOf(column: Column | undefined, n: number): unknown[] {
  if (!column) return new Array(n).fill(null);
  if (column.kind === "json") return JSON.parse(column.text);
  const out = new Array(n);
  if (column.kind === "number") {
    const v = column.values;
    for (let j = 0; j < n; j++) out[j] = v[j] === v[j] ? v[j] : null;
    return out;
  }
  const { start, items } = column;
  for (let j = 0; j < n; j++) {
    const from = start[j], list = new Array(start[j + 1] - from);
    for (let k = 0; k < list.length; k++) list[k] = items[from + k];
    out[j] = list;
  }
  return out;
}
