/**
 * A JSON array read element by element as the body arrives, so a 256 MB upload is never one string nor
 * one parsed array: a scanner finds where each top-level element ends (a comma or the closing bracket
 * outside any string and any nesting), then JSON.parse reads that element alone.
 */
import { BadRequestError } from "../errors.ts";

/** One element's text, its position in the array and the line it starts on. */
export interface ArrayElement {
  index: number;
  line: number;
  text: string;
}

const SPACE = new Set([32, 9, 10, 13]);
const [QUOTE, BACKSLASH, COMMA, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [
  34,
  92,
  44,
  91,
  93,
  123,
  125,
];

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
    for (let k = 0; k < chunk.length; k++) {
      const ch = chunk.charCodeAt(k);
      if (state === "element") {
        if (inString) {
          if (escaped) escaped = false;
          else if (ch === BACKSLASH) escaped = true;
          else if (ch === QUOTE) inString = false;
        } else if (ch === QUOTE) inString = true;
        else if (ch === OPEN_ARRAY || ch === OPEN_OBJECT) depth++;
        else if (depth > 0 && (ch === CLOSE_ARRAY || ch === CLOSE_OBJECT)) depth--;
        else if (depth === 0 && (ch === COMMA || ch === CLOSE_ARRAY)) {
          pieces.push(chunk.slice(from, k));
          yield { index: index++, line: elementLine, text: pieces.join("") };
          pieces = [];
          state = ch === COMMA ? "next" : "done";
        }
      } else if (!SPACE.has(ch)) {
        if (state === "start" && ch === OPEN_ARRAY) state = "first";
        else if (state === "first" && ch === CLOSE_ARRAY) state = "done";
        else if (state === "first" || state === "next") {
          state = "element";
          elementLine = line;
          from = k;
          k--; // read this character again as the element's first
          continue;
        } else if (state === "done") {
          throw new BadRequestError(`line ${line}: text after the end of the array`);
        } else throw new BadRequestError("a JSON upload must be an array of objects");
      }
      if (ch === 10) line++;
    }
    if (state === "element") pieces.push(chunk.slice(from));
  }
  if (state === "start") throw new BadRequestError("a JSON upload must be an array of objects");
  if (state !== "done") throw new BadRequestError(`line ${line}: the body ends before the array does`);
}
