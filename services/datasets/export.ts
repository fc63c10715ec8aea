/**
 * Reading a collection back out: its rows as NDJSON or CSV, streamed from the store one batch at a time
 * into a ReadableStream that reads the next batch only when the previous one has been taken (a slow
 * client slows the store's reads instead of filling memory). One use case for
 * `GET /api/datasets/{database}/{collection}` and `deno task export`.
 *
 * - Every row carries its `_id` (first); `fields` keeps `_id` and the named top-level fields.
 * - NDJSON: one document per line, exactly as stored (types and nesting kept).
 * - CSV (RFC 4180: CRLF line ends; a cell with a comma, a quote, CR or LF is quoted, its quotes doubled):
 *   the header is `_id`, then the registry's columns in their order, then any field some document carries
 *   that the registry lacks (a write-back's new field, a collection imported by another tool), in the order
 *   first met; finding those reads the collection once before the rows are sent. With `fields` the header
 *   is `_id` and those fields, in the order given. null and absent values are empty cells, objects and
 *   arrays JSON text, numbers and booleans as JSON writes them.
 * - A collection the registry names in this database, or one that holds documents, can be exported;
 *   anything else is a 404 naming it. Tessera's own database is refused as the import refuses it.
 */
import type { Config } from "../../config.ts";
import { type CollectionRef, type Doc, type Store } from "../../store/store.ts";
import { ConflictError, NotFoundError, UnknownNameError } from "../../core/errors.ts";
import { checkImportTarget } from "../../core/ingest/import_target.ts";
import { log } from "../../core/log.ts";
import { findDataset } from "./registry.ts";

export type ExportFormat = "ndjson" | "csv";

/** The media type of each format (what the route answers in Content-Type and negotiates by Accept). */
export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = {
  ndjson: "application/x-ndjson",
  csv: "text/csv",
};

type Loc = (string | number)[];

/** What an export needs: the store, and the configuration naming Tessera's own database. */
export interface ExportDeps {
  store: Store;
  config: Pick<Config, "TESSERA_DB">;
}

export interface ExportInput {
  target: CollectionRef;
  format: ExportFormat;
  /** Top-level fields to keep besides `_id` (as `parseFieldList` gives them); absent: every field. */
  fields?: string[];
  /** Where the caller names the database and the field list, for a refusal's `loc`. */
  loc?: { db: Loc; collection: Loc; fields: Loc };
  /** Documents per store read and per chunk of the answer (default 1000). */
  batchSize?: number;
}

export interface ExportStream {
  format: ExportFormat;
  /** The CSV header's names (null for NDJSON). */
  columns: string[] | null;
  /** The rows, encoded as UTF-8; cancelling it closes the store's cursor. */
  body: ReadableStream<Uint8Array>;
}

const DEFAULT_LOC = { db: ["target", "db"], collection: ["target", "collection"], fields: ["fields"] };

/**
 * The field names of a comma-separated list, trimmed, without repeats and without `_id` (which every row
 * carries anyway); a problem message for an empty name or an empty list.
 */
export function parseFieldList(text: string): { fields: string[] } | { problem: string } {
  const names = text.split(",").map((s) => s.trim());
  const empty = names.findIndex((n) => n === "");
  if (empty >= 0) {
    return {
      problem: names.length === 1
        ? "name at least one field (only `_id`: fields=_id)"
        : `the ${ordinal(empty + 1)} of ${names.length} comma-separated names is empty`,
    };
  }
  return { fields: [...new Set(names)].filter((n) => n !== "_id") };
}

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${s}`;
}

/** One CSV cell (RFC 4180): quoted when it holds a comma, a quote, CR or LF, quotes doubled. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "string"
    ? value
    : typeof value === "object"
    ? JSON.stringify(value)
    : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV line of these values, ended by CRLF. */
export function csvLine(values: unknown[]): string {
  return values.map(csvCell).join(",") + "\r\n";
}

/** A document's own field (never something of Object.prototype such as `constructor`). */
const own = (doc: Doc, name: string): unknown => Object.hasOwn(doc, name) ? doc[name] : undefined;

/**
 * Whether the store can be asked to project these names: MongoDB reads a dotted name as a path into
 * nested documents and refuses a leading `$`, and a plain object given `__proto__` changes its prototype,
 * where a top-level field of that name is meant. Such lists are projected here instead, after the read.
 */
const storeCanProject = (fields: string[]) =>
  fields.every((f) => !f.includes(".") && !f.startsWith("$") && f !== "__proto__");

/** Keeps `_id` and the named top-level fields, `_id` first. */
function keep(doc: Doc, fields: string[]): Doc {
  const out: Doc = { _id: doc._id };
  for (const f of fields) {
    if (Object.hasOwn(doc, f)) {
      Object.defineProperty(out, f, { value: doc[f], enumerable: true, writable: true, configurable: true });
    }
  }
  return out;
}

/** The store's batches of `ref`, kept to `fields` when given. */
function batchesOf(store: Store, ref: CollectionRef, fields: string[] | undefined, batchSize: number) {
  if (!fields) return store.stream(ref, { batchSize });
  // (an empty projection is `{}` to MongoDB, which keeps every field: `_id` is named instead)
  if (storeCanProject(fields)) {
    return store.stream(ref, { batchSize, projection: fields.length ? fields : ["_id"] });
  }
  return (async function* () {
    for await (const batch of store.stream(ref, { batchSize })) yield batch.map((d) => keep(d, fields));
  })();
}

/** Whether the collection holds at least one document (one document read). */
async function holdsDocuments(store: Store, ref: CollectionRef): Promise<boolean> {
  for await (const batch of store.stream(ref, { projection: ["_id"], batchSize: 1 })) {
    if (batch.length) return true;
  }
  return false;
}

/**
 * Reads the collection until every name of `wanted` has been seen on some document; the names no
 * document carries (all of the collection read to tell).
 */
async function absentFields(
  store: Store,
  ref: CollectionRef,
  wanted: string[],
  batchSize: number,
): Promise<string[]> {
  const missing = new Set(wanted);
  if (!missing.size) return [];
  for await (const batch of batchesOf(store, ref, wanted, batchSize)) {
    for (const doc of batch) for (const f of missing) if (Object.hasOwn(doc, f)) missing.delete(f);
    if (!missing.size) break;
  }
  return [...missing];
}

/** The fields of the collection's documents that `known` lacks, in the order first met (`_id` left out). */
async function extraFields(
  store: Store,
  ref: CollectionRef,
  known: Set<string>,
  batchSize: number,
): Promise<string[]> {
  const extra = new Set<string>();
  for await (const batch of store.stream(ref, { batchSize })) {
    for (const doc of batch) for (const f of Object.keys(doc)) if (!known.has(f)) extra.add(f);
  }
  extra.delete("_id");
  return [...extra];
}

/** The document as one NDJSON line, `_id` first. */
function ndjsonLine(doc: Doc): string {
  const { _id, ...rest } = doc;
  return JSON.stringify({ _id, ...rest }) + "\n";
}

/**
 * The rows of a collection as a stream of UTF-8 chunks (one per store batch; a CSV's header travels with
 * the first). Refusals come before any row: Tessera's own database (422 at `loc.db`), a collection that
 * does not exist (404), a dataset whose first import is still running (409), a named field that the
 * registry does not list and no document carries (422 at `loc.fields`).
 */
export async function exportRows(deps: ExportDeps, input: ExportInput): Promise<ExportStream> {
  const { store, config } = deps;
  const { target, format, fields } = input;
  const loc = input.loc ?? DEFAULT_LOC;
  const batchSize = input.batchSize ?? 1000;
  checkImportTarget(target, config.TESSERA_DB, loc);

  const found = await findDataset(store, config.TESSERA_DB, target.collection);
  const record = found?.database === target.db ? found : null;
  if (record?.importing) {
    throw new ConflictError(
      `the first import of '${target.collection}' into '${target.db}' is still running; ` +
        "export it when it has finished",
    );
  }
  if (!record && !await holdsDocuments(store, target)) {
    const elsewhere = found ? ` (a dataset of that name lives in database '${found.database}')` : "";
    throw new NotFoundError(`no collection '${target.collection}' in database '${target.db}'${elsewhere}`);
  }

  const columns = (record?.columns ?? []).map((c) => c.name).filter((n) => n !== "_id");
  if (fields) {
    const listed = new Set(columns);
    const absent = await absentFields(store, target, fields.filter((f) => !listed.has(f)), batchSize);
    if (absent.length) {
      const names = absent.map((f) => `'${f}'`).join(", ");
      throw new UnknownNameError(
        `no document of '${target.collection}' has the field${absent.length > 1 ? "s" : ""} ${names}`,
        loc.fields,
      );
    }
  }
  const header = format === "ndjson"
    ? null
    : ["_id", ...(fields ?? [...columns, ...await extraFields(store, target, new Set(columns), batchSize)])];

  const encode = header
    ? (batch: Doc[]) => batch.map((d) => csvLine(header.map((f) => f === "_id" ? d._id : own(d, f)))).join("")
    : (batch: Doc[]) => batch.map(ndjsonLine).join("");
  const rows = batchesOf(store, target, fields, batchSize)[Symbol.asyncIterator]();
  // the first batch is read here, so that a store that fails at once is an error answer, not a cut body
  const first = await rows.next();
  return {
    format,
    columns: header,
    body: rowStream(rows, first, header ? csvLine(header) : "", encode, target),
  };
}

/**
 * A pull stream over the batches: each pull (the consumer wants more) reads one batch and enqueues it as
 * one chunk, so at most the queued chunk and the batch being read are held. Cancelling closes the reader.
 */
function rowStream(
  rows: AsyncIterator<Doc[]>,
  first: IteratorResult<Doc[]>,
  head: string,
  encode: (batch: Doc[]) => string,
  where: CollectionRef,
): ReadableStream<Uint8Array> {
  const utf8 = new TextEncoder();
  let next: IteratorResult<Doc[]> | null = first;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let step: IteratorResult<Doc[]>;
      try {
        step = next ?? await rows.next();
      } catch (e) {
        // the answer's status is sent: the client sees a cut transfer, never a short file that looks whole
        log("error", "export stopped by a store failure", { ...where, error: String(e) });
        throw e;
      }
      const text = (next ? head : "") + (step.done ? "" : encode(step.value));
      next = null;
      if (text) controller.enqueue(utf8.encode(text));
      if (step.done) controller.close();
    },
    async cancel() {
      await rows.return?.();
    },
  }, new CountQueuingStrategy({ highWaterMark: 1 }));
}
