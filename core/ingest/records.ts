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

/** Where the record a reader yielded last came from ("line 12", "item 3"); set before each yield. */
export interface Position {
  where: string;
}

/** The format a Content-Type names, or null when it names none of ours. */
export function formatOf(contentType: string | undefined): UploadFormat | null {
  const ct = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (ct === "text/csv" || ct === "application/csv") return "csv";
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

/** Records of an upload body in the given format; `position` follows the record last yielded. */
export function readRecords(
  format: UploadFormat,
  chunks: AsyncIterable<string>,
  position: Position = { where: "" },
): AsyncGenerator<JsonRecord> {
  if (format === "csv") return csvRecords(chunks, position);
  if (format === "tsv") return csvRecords(chunks, position, "\t");
  if (format === "ndjson") return ndjsonRecords(chunks, position);
  return jsonArrayRecords(chunks, position);
}

/**
 * CSV rows keyed by the header, cells typed by `inferCell`; a short or long row is an error. TSV is the
 * same with a tab as the delimiter (quotes still group a field, as spreadsheets write them).
 */
export async function* csvRecords(
  chunks: AsyncIterable<string>,
  position: Position = { where: "" },
  delimiter = ",",
): AsyncGenerator<JsonRecord> {
  let header: string[] | null = null;
  for await (const { line, fields } of readCsv(chunks, delimiter)) {
    if (!header) {
      header = fields.map((f, i) => f.trim().replace(/^\uFEFF/, "") || `column_${i + 1}`);
      const dup = header.find((h, i) => header!.indexOf(h) !== i);
      if (dup) throw new BadRequestError(`line 1: the header names column '${dup}' twice`);
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

/**
 * Text split into lines across chunk boundaries, numbered from 1. Each chunk is searched once and a
 * long line's pieces are joined once, so a 20 MB line costs 20 MB of work, not a rescan per chunk.
 */
async function* lines(chunks: AsyncIterable<string>): AsyncGenerator<{ line: number; text: string }> {
  let pieces: string[] = [];
  let line = 0;
  for await (const chunk of chunks) {
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf("\n", start)) >= 0) {
      pieces.push(chunk.slice(start, nl));
      yield { line: ++line, text: pieces.join("") };
      pieces = [];
      start = nl + 1;
    }
    if (start < chunk.length) pieces.push(chunk.slice(start));
  }
  const rest = pieces.join("");
  if (rest) yield { line: ++line, text: rest };
}

/** One JSON object per non-blank line. */
export async function* ndjsonRecords(
  chunks: AsyncIterable<string>,
  position: Position = { where: "" },
): AsyncGenerator<JsonRecord> {
  for await (const { line, text } of lines(chunks)) {
    if (!text.trim()) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new BadRequestError(`line ${line}: not valid JSON (${(e as Error).message})`);
    }
    position.where = `line ${line}`;
    yield asRecord(value, position.where);
  }
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
  const id = rec._id as { $oid?: unknown } | string | undefined;
  if (id === undefined || typeof id === "string") return rec;
  if (id && typeof id === "object" && typeof id.$oid === "string") return { ...rec, _id: id.$oid };
  throw new BadRequestError(`${where}: _id must be a string`);
}
