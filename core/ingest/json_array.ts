/**
 * A JSON array read element by element as the body arrives, so a large upload is never one string nor
 * one parsed array: a scanner finds where each top-level element ends (a comma or the closing bracket
 * outside any string and any nesting), then JSON.parse reads that element alone. Measured against the
 * streaming parser `@streamparser/json` (BENCHMARKS.md, "Import"): this is several times faster.
 */
import { BadRequestError } from "../errors.ts";

/** One element's text, its position in the array and the line it starts on. */
export interface ArrayElement {
  index: number;
  line: number;
  text: string;
}

const [QUOTE, BACKSLASH, COMMA, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, NEWLINE] = [
  34,
  92,
  44,
  91,
  93,
  123,
  10,
];

/**
 * The next character that matters inside an element, found by the regular expression engine instead of
 * one character at a time (a row's numbers, a long string, are skipped whole): in a string a quote, a
 * backslash or a line break; outside strings a quote, a bracket, a brace or a line break, and at the top
 * level of the element also a comma (deeper, commas separate the element's own items).
 */
const IN_STRING = /["\\\n]/g;
const NESTED = /["[\]{}\n]/g;
const TOP = /["[\]{},\n]/g;

const isSpace = (ch: number) => ch === 32 || ch === 10 || ch === 13 || ch === 9;

/** Where the scanner is: before `[`, before an element (`]` allowed only first), in one, after `]`. */
type State = "start" | "first" | "next" | "element" | "done";

/** The elements of a JSON array, as text; structural errors are a 400 naming the line. */
export async function* arrayElements(chunks: AsyncIterable<string>): AsyncGenerator<ArrayElement> {
  let state = "start" as State; // widened: the loop changes it
  let depth = 0, inString = false, escaped = false;
  let line = 1, index = 0, elementLine = 1;
  let pieces: string[] = [];
  for await (const chunk of chunks) {
    let from = 0; // where the current element's text starts in this chunk
    let k = 0;
    while (k < chunk.length) {
      if (state === "element") {
        if (escaped) { // the character after a backslash, whatever it is
          escaped = false;
          if (chunk.charCodeAt(k++) === NEWLINE) line++;
          continue;
        }
        const next = inString ? IN_STRING : depth > 0 ? NESTED : TOP;
        next.lastIndex = k;
        if (!next.test(chunk)) break; // nothing that matters in the rest of this chunk
        k = next.lastIndex - 1;
        const ch = chunk.charCodeAt(k++);
        if (ch === NEWLINE) line++;
        else if (inString) {
          if (ch === BACKSLASH) escaped = true;
          else inString = false; // the closing quote
        } else if (ch === QUOTE) inString = true;
        else if (ch === OPEN_ARRAY || ch === OPEN_OBJECT) depth++;
        else if (depth > 0) depth--; // a closing bracket or brace
        else if (ch === COMMA || ch === CLOSE_ARRAY) { // the element ends
          pieces.push(chunk.slice(from, k - 1));
          yield { index: index++, line: elementLine, text: pieces.join("") };
          pieces = [];
          state = ch === COMMA ? "next" : "done";
        } // a stray `}` stays in the element's text, for JSON.parse to name
        continue;
      }
      const ch = chunk.charCodeAt(k);
      if (!isSpace(ch)) {
        if (state === "start" && ch === OPEN_ARRAY) state = "first";
        else if (state === "first" && ch === CLOSE_ARRAY) state = "done";
        else if (state === "first" || state === "next") {
          state = "element"; // this character is read again as the element's first
          elementLine = line;
          from = k;
          continue;
        } else if (state === "done") {
          throw new BadRequestError(`line ${line}: text after the end of the array`);
        } else throw new BadRequestError("a JSON upload must be an array of objects");
      }
      if (ch === NEWLINE) line++;
      k++;
    }
    if (state === "element") pieces.push(chunk.slice(from));
  }
  if (state === "start") throw new BadRequestError("a JSON upload must be an array of objects");
  if (state !== "done") throw new BadRequestError(`line ${line}: the body ends before the array does`);
}
