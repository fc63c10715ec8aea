/**
 * The two maintained CSV parsers issue 21 names, papaparse and csv-parse, behind the interface of
 * Tessera's own reader (`readCsv` in core/ingest/csv.ts: text chunks in, rows with the line each starts
 * on out, a 400 for a malformed row), doing what the import needs of a reader, for
 * bench/csv_parser_bench.ts to compare.
 */
import Papa from "papaparse";
import { parse as csvParse } from "csv-parse";
import { type CsvRow, readCsv } from "../core/ingest/csv.ts";
import { BadRequestError } from "../core/errors.ts";

export type Reader = (chunks: AsyncIterable<string>, delimiter: string) => AsyncGenerator<CsvRow>;

/** The line a row started on, counted from the line breaks inside its (quoted) fields. */
function linesIn(fields: string[]): number {
  let n = 0;
  for (const f of fields) for (let i = f.indexOf("\n"); i >= 0; i = f.indexOf("\n", i + 1)) n++;
  return n;
}

/**
 * papaparse's Parser over a stream, as its own ChunkStreamer drives it: the line break guessed (as
 * `Papa.parse` guesses it) from the first 64 KiB, then the text parsed chunk by chunk with what was left
 * of the one before, `ignoreLastRow` keeping an unfinished row for the next. Empty lines come as `[""]`
 * and are skipped.
 */
export const papaReader: Reader = async function* (chunks, delimiter) {
  let rest = "";
  let line = 1;
  let newline: string | undefined;
  const take = function* (text: string, last: boolean) {
    newline ??= Papa.parse(text.slice(0, 65_536), { preview: 1, delimiter }).meta.linebreak || "\n";
    // each row with where it ends, so that an empty line (skipped) is told from a row `""` (kept)
    const rows: { fields: string[]; end: number; error?: string }[] = [];
    const r = new Papa.Parser({
      delimiter,
      newline,
      step: (res: Papa.ParseStepResult<string[]>) => {
        // the raw Parser hands each row wrapped in an array
        const fields = (res.data as unknown as string[][])[0];
        rows.push({ fields, end: res.meta.cursor, error: res.errors[0]?.message });
      },
    }).parse(text, 0, !last);
    let start = 0;
    for (const { fields, end, error } of rows) {
      const at = line;
      if (error) throw new BadRequestError(`line ${at}: ${error}`);
      line += 1 + linesIn(fields);
      const blank = fields.length === 1 && fields[0] === "" && text.slice(start, end).trim() === "";
      start = end;
      if (!blank) yield { line: at, fields };
    }
    return r.meta.cursor;
  };
  for await (const chunk of chunks) {
    const text = rest + chunk;
    if (newline === undefined && text.length < 65_536) { // wait for enough text to guess the line break
      rest = text;
      continue;
    }
    const cursor = yield* take(text, false);
    rest = text.slice(cursor);
  }
  if (rest) yield* take(rest, true);
};

/** csv-parse's streaming Transform; its `info.lines` is the line a record ends on. */
export const csvParseReader: Reader = async function* (chunks, delimiter) {
  const parser = csvParse({ delimiter, relax_column_count: true, info: true, skip_empty_lines: true });
  const feeding = (async () => {
    for await (const c of chunks) {
      if (!parser.write(c)) await new Promise((r) => parser.once("drain", r));
    }
    parser.end();
  })();
  try {
    for await (const { record, info } of parser) {
      yield { line: info.lines - linesIn(record), fields: record as string[] };
    }
  } catch (e) {
    throw new BadRequestError((e as Error).message);
  }
  await feeding;
};

export const READERS: [string, Reader][] = [
  ["tessera", readCsv],
  ["papaparse", papaReader],
  ["csv-parse", csvParseReader],
];
