/**
 * A streaming RFC 4180 CSV reader: quoted fields, doubled quotes, newlines inside quotes, CRLF.
 * It holds one row at a time, so a 100 MB upload never sits in memory as a whole.
 */
import { BadRequestError } from "../errors.ts";

/** One parsed row and the physical line it starts on (1-based; the header is line 1). */
export interface CsvRow {
  line: number;
  fields: string[];
}

/**
 * Splits a stream of text chunks into rows. A row of more than `maxFields` fields is refused as soon as
 * its field past the limit begins (a 400 naming its line), so a very wide row is never held whole.
 */
export async function* readCsv(
  chunks: AsyncIterable<string>,
  delimiter = ",",
  maxFields = Infinity,
): AsyncGenerator<CsvRow> {
  let field = "";
  let fields: string[] = [];
  let inQuotes = false;
  let afterQuote = false;
  let line = 1;
  let rowLine = 1;
  let pendingCR = false;
  let started = false; // the row has content, even if only `""`
  for await (const chunk of chunks) {
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i];
      if (pendingCR) {
        pendingCR = false;
        if (ch === "\n") continue;
      }
      if (ch !== "\n" && ch !== "\r") started = true;
      if (inQuotes && ch !== '"') {
        // a quoted run up to the next quote (or the chunk's end), taken whole
        let end = chunk.indexOf('"', i);
        if (end < 0) end = chunk.length;
        const run = chunk.slice(i, end);
        for (let nl = run.indexOf("\n"); nl >= 0; nl = run.indexOf("\n", nl + 1)) line++;
        field += run;
        i = end - 1;
        continue;
      }
      if (!inQuotes && !afterQuote && ch !== '"' && ch !== delimiter && ch !== "\n" && ch !== "\r") {
        // an unquoted run up to the next delimiter, line break or quote, taken whole
        let end = i + 1;
        while (end < chunk.length) {
          const c = chunk[end];
          if (c === delimiter || c === "\n" || c === "\r" || c === '"') break;
          end++;
        }
        field += chunk.slice(i, end);
        i = end - 1;
        continue;
      }
      if (inQuotes) {
        if (ch === '"') {
          if (chunk[i + 1] === '"') {
            field += '"';
            i++;
          } else if (i + 1 === chunk.length) {
            afterQuote = true; // decided by the next chunk's first character
            inQuotes = false;
          } else {
            inQuotes = false;
            afterQuote = true;
          }
        } else {
          if (ch === "\n") line++;
          field += ch;
        }
        continue;
      }
      if (afterQuote && ch === '"' && i === 0) {
        field += '"'; // a doubled quote split across two chunks
        inQuotes = true;
        afterQuote = false;
        continue;
      }
      if (ch === delimiter) {
        fields.push(field);
        field = "";
        afterQuote = false;
        if (fields.length >= maxFields) {
          throw new BadRequestError(
            `line ${rowLine}: more than ${maxFields} fields (an upload has at most ${maxFields} columns)`,
          );
        }
      } else if (ch === "\n" || ch === "\r") {
        fields.push(field);
        if (started) yield { line: rowLine, fields };
        started = false;
        fields = [];
        field = "";
        afterQuote = false;
        line++;
        rowLine = line;
        pendingCR = ch === "\r";
      } else if (ch === '"' && field === "" && !afterQuote) {
        inQuotes = true;
      } else {
        if (afterQuote) throw new BadRequestError(`line ${line}: unexpected character after a closing quote`);
        field += ch;
      }
    }
  }
  if (inQuotes) throw new BadRequestError(`line ${rowLine}: a quoted field is never closed`);
  if (started) {
    fields.push(field);
    yield { line: rowLine, fields };
  }
}
