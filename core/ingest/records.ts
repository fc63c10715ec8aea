/**
 * Upload bodies (CSV, NDJSON, a JSON array) as a stream of plain records, each with the line (or
 * array position) it came from, so a bad row is reported where the user can find it.
 */
import { BadRequestError } from "../errors.ts";
import { readCsv } from "./csv.ts";
import { inferCell } from "./values.ts";
import { arrayElements } from "./json_array.ts";

export type JsonRecord = Record<string, unknown>;
export type UploadFormat = "csv" | "tsv" | "ndjson" | "json";

/** The field delimiters a CSV upload may use (detected among these when none is given). */
export const CSV_DELIMITERS = [",", ";", "\t", "|"] as const;
export type CsvDelimiter = typeof CSV_DELIMITERS[number];

/**
 * Most columns (fields of a record) an upload may have. A CSV header past it is refused as soon as its
 * field past the limit is read, a JSON record past it when it is parsed: a 400 naming the line or item.
 */
export const MAX_COLUMNS = 10_000;

/**
 * How a CSV upload is read: `delimiter` as given, or null to detect it from the first lines; after the
 * reader has started, it holds the delimiter in use.
 */
export interface CsvDialect {
  delimiter: CsvDelimiter | null;
}

/** Where the record a reader yielded last came from ("line 12", "item 3"); set before each yield. */
export interface Position {
  where: string;
}

/** The format a Content-Type names, or null when it names none of ours. */
export function formatOf(contentType: string | undefined): UploadFormat | null {
  const ct = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (ct === "text/csv" || ct === "application/csv") return "csv";
  if (ct === "text/tab-separated-values") return "tsv";
  if (ct === "application/x-ndjson" || ct === "application/ndjson" || ct === "application/jsonl") {
    return "ndjson";
  }
  if (ct === "application/json") return "json";
  return null;
}

/** The format a file name's extension names, or null: a guess from an unknown extension would misread. */
export function formatOfFileName(name: string): UploadFormat | null {
  const ext = /\.([^./\\]+)$/.exec(name)?.[1].toLowerCase();
  if (ext === "csv") return "csv";
  if (ext === "tsv" || ext === "tab") return "tsv";
  if (ext === "json") return "json";
  if (ext === "ndjson" || ext === "jsonl") return "ndjson";
  return null;
}

/**
 * Records of an upload body in the given format; `position` follows the record last yielded. CSV reads
 * with `dialect.delimiter`, or detects it (`detectDelimiter`) and records it there; TSV is CSV with tabs.
 */
export function readRecords(
  format: UploadFormat,
  chunks: AsyncIterable<string>,
  position: Position = { where: "" },
  dialect: CsvDialect = { delimiter: null },
): AsyncGenerator<JsonRecord> {
  if (format === "csv") return dialectRecords(chunks, position, dialect);
  if (format === "tsv") return csvRecords(chunks, position, dialect.delimiter ??= "\t");
  if (format === "ndjson") return ndjsonRecords(chunks, position);
  return jsonArrayRecords(chunks, position);
}

/** CSV records with the dialect's delimiter, detected from the first lines when it names none. */
async function* dialectRecords(
  chunks: AsyncIterable<string>,
  position: Position,
  dialect: CsvDialect,
): AsyncGenerator<JsonRecord> {
  if (dialect.delimiter) return yield* csvRecords(chunks, position, dialect.delimiter);
  const { sample, rest } = await peek(chunks, DETECT_CHARS);
  dialect.delimiter = await detectDelimiter(sample.join(""), rest === null);
  yield* csvRecords(prepend(sample, rest), position, dialect.delimiter);
}

/** How much of a CSV upload the delimiter is detected from (at most DETECT_ROWS rows of it). */
const DETECT_CHARS = 65_536;
const DETECT_ROWS = 20;

/** The first chunks of a stream, at least `chars` long unless it ends first (`rest` null), and the rest. */
async function peek(chunks: AsyncIterable<string>, chars: number) {
  const it = chunks[Symbol.asyncIterator]();
  const sample: string[] = [];
  let length = 0;
  while (length < chars) {
    const next = await it.next();
    if (next.done) return { sample, rest: null };
    sample.push(next.value);
    length += next.value.length;
  }
  return { sample, rest: it };
}

/** The chunks `head`, then whatever `rest` still gives. */
async function* prepend(head: string[], rest: AsyncIterator<string> | null): AsyncGenerator<string> {
  yield* head;
  if (!rest) return;
  for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
}

/**
 * The delimiter of a CSV text's first rows, among `,` `;` tab `|` (quoted fields respected): the one that
 * splits the header into more than one field and the most rows into as many fields as the header, then
 * the one giving the most fields, then the first in that order. `,` when none splits the header (a file
 * of one column). `complete`: the sample is the whole upload (else its last, perhaps cut, row is ignored).
 */
export async function detectDelimiter(sample: string, complete: boolean): Promise<CsvDelimiter> {
  let best: CsvDelimiter = ",";
  let bestScore = [0, 0];
  for (const d of CSV_DELIMITERS) {
    const rows: string[][] = [];
    let cut = !complete; // the last row read may be cut off by the sample's end
    try {
      for await (const { fields } of readCsv(prepend([sample], null), d, MAX_COLUMNS)) {
        rows.push(fields);
        if (rows.length > DETECT_ROWS) {
          cut = false; // every row read was followed by another
          break;
        }
      }
    } catch { /* a quote cut by the sample's end, or a malformed row: judge the rows before it */ }
    if (cut && rows.length > 1) rows.pop();
    const width = rows[0]?.length ?? 0;
    if (width < 2) continue;
    const score = [rows.filter((r) => r.length === width).length / rows.length, width];
    if (score[0] > bestScore[0] || (score[0] === bestScore[0] && score[1] > bestScore[1])) {
      [best, bestScore] = [d, score];
    }
  }
  return best;
}

/**
 * CSV rows keyed by the header, cells typed by `inferCell`; a short or long row is an error, and so is
 * a header of more than MAX_COLUMNS fields. TSV is the same with a tab as the delimiter (quotes still
 * group a field, as spreadsheets write them).
 */
export async function* csvRecords(
  chunks: AsyncIterable<string>,
  position: Position = { where: "" },
  delimiter = ",",
): AsyncGenerator<JsonRecord> {
  let header: string[] | null = null;
  for await (const { line, fields } of readCsv(chunks, delimiter, MAX_COLUMNS)) {
    if (!header) {
      header = headerOf(fields);
      continue;
    }
    if (fields.length !== header.length) {
      throw new BadRequestError(`line ${line}: expected ${header.length} fields, found ${fields.length}`);
    }
    const rec: JsonRecord = {};
    header.forEach((h, i) => (rec[h] = inferCell(fields[i])));
    position.where = `line ${line}`;
    yield rec;
  }
}

/** A CSV header's column names: trimmed, the BOM gone, blanks named `column_<n>`; a repeated name is a 400. */
function headerOf(fields: string[]): string[] {
  const header = fields.map((f, i) => f.trim().replace(/^\uFEFF/, "") || `column_${i + 1}`);
  const seen = new Set<string>();
  for (const h of header) {
    if (seen.has(h)) throw new BadRequestError(`line 1: the header names column '${h}' twice`);
    seen.add(h);
  }
  return header;
}

/**
 * One JSON object per non-blank line. The text is split into lines across chunk boundaries, numbered
 * from 1, in this one generator (a record costs one step of it, not one per line and one per record):
 * each chunk is searched once and a long line's pieces are joined once, so a 20 MB line costs 20 MB of
 * work, not a rescan per chunk.
 */
export async function* ndjsonRecords(
  chunks: AsyncIterable<string>,
  position: Position = { where: "" },
): AsyncGenerator<JsonRecord> {
  let pieces: string[] = [];
  let line = 0;
  for await (const chunk of chunks) {
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf("\n", start)) >= 0) {
      let text = chunk.slice(start, nl);
      if (pieces.length) {
        pieces.push(text);
        text = pieces.join("");
        pieces = [];
      }
      start = nl + 1;
      const rec = ndjsonLine(text, ++line);
      if (rec) {
        position.where = `line ${line}`;
        yield rec;
      }
    }
    if (start < chunk.length) pieces.push(chunk.slice(start));
  }
  const rest = pieces.join("");
  const rec = rest ? ndjsonLine(rest, ++line) : null;
  if (rec) {
    position.where = `line ${line}`;
    yield rec;
  }
}

/** The record of one NDJSON line, null for a blank one. */
function ndjsonLine(text: string, line: number): JsonRecord | null {
  if (!text.trim()) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new BadRequestError(`line ${line}: not valid JSON (${(e as Error).message})`);
  }
  return asRecord(value, `line ${line}`);
}

/** A JSON array of objects, element by element as the body arrives (see json_array.ts). */
export async function* jsonArrayRecords(
  chunks: AsyncIterable<string>,
  position: Position = { where: "" },
): AsyncGenerator<JsonRecord> {
  for await (const { index, line, text } of arrayElements(chunks)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new BadRequestError(`item ${index} (line ${line}): not valid JSON (${(e as Error).message})`);
    }
    position.where = `item ${index}`;
    yield asRecord(value, position.where);
  }
}

/** Checks a parsed value is an object and normalises an exported `{_id: {$oid}}`. */
function asRecord(value: unknown, where: string): JsonRecord {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BadRequestError(`${where}: expected a JSON object`);
  }
  const rec = value as JsonRecord;
  let fields = 0;
  for (const _ in rec) {
    if (++fields > MAX_COLUMNS) {
      throw new BadRequestError(
        `${where}: more than ${MAX_COLUMNS} fields (an upload has at most ${MAX_COLUMNS} columns)`,
      );
    }
  }
  const id = rec._id as { $oid?: unknown } | string | undefined;
  if (id === undefined || typeof id === "string") return rec;
  if (id && typeof id === "object" && typeof id.$oid === "string") return { ...rec, _id: id.$oid };
  throw new BadRequestError(`${where}: _id must be a string`);
}
