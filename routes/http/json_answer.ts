/**
 * A JSON answer written in pieces: JSON.stringify of a mitigation's answer (a line per individual) takes
 * hundreds of milliseconds at 200,000 individuals, all of it on the event loop. Here the body is a stream
 * that serialises about a megabyte per pull, large arrays cut between elements (and lists that make their
 * elements a slice at a time, such as a mitigation's predictions, read a slice at a time, or written as
 * bytes when they can), with a turn of the event loop before each pull. The text is JSON.stringify's, byte
 * for byte.
 */
import type { Context } from "hono";
import { nextTurn, TURN_MS } from "../../core/turns.ts";

/** Elements of an array serialised together. */
const ELEMENTS = 2000;
/**
 * Characters (or bytes) a pull enqueues at most (one piece may exceed it); it stops sooner after TURN_MS (on
 * two cores busy with workers a whole pull can take longer than a turn should).
 */
const PULL_CHARS = 1 << 20;

const plain = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/** A list that makes its elements a slice at a time, whose JSON text (its toJSON's) is that of them all. */
interface SlicedList {
  readonly length: number;
  slice(from: number, to: number): unknown[];
  toJSON(): unknown[];
  /** The JSON texts of elements from..to-1, joined by commas, as UTF-8: what the slice's would be. */
  jsonBytes?(from: number, to: number): Uint8Array;
}

const sliced = (v: unknown): v is SlicedList =>
  typeof v === "object" && v !== null && typeof (v as SlicedList).toJSON === "function" &&
  typeof (v as SlicedList).slice === "function" && typeof (v as SlicedList).length === "number";

/**
 * The JSON text of `value` in pieces, as text or as UTF-8 (a list's `jsonBytes`): plain objects and arrays
 * opened up to `depth` levels.
 */
export function* jsonPieces(value: unknown, depth = 3): Generator<string | Uint8Array> {
  if (sliced(value) && value.jsonBytes && depth > 0) {
    yield "[";
    for (let at = 0; at < value.length; at += ELEMENTS) {
      if (at) yield ",";
      yield value.jsonBytes(at, at + ELEMENTS);
    }
    yield "]";
  } else if ((Array.isArray(value) || sliced(value)) && depth > 0) {
    yield "[";
    for (let at = 0; at < value.length; at += ELEMENTS) {
      const part = JSON.stringify(value.slice(at, at + ELEMENTS));
      yield (at ? "," : "") + part.slice(1, -1);
    }
    yield "]";
  } else if (plain(value) && depth > 0) {
    yield "{";
    let first = true;
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
      yield (first ? "" : ",") + JSON.stringify(k) + ":";
      first = false;
      yield* jsonPieces(v, depth - 1);
    }
    yield "}";
  } else yield JSON.stringify(value) ?? "null";
}

/** `c.json(value, 200)`, serialised a piece at a time as the client reads (see the module comment). */
export function jsonAnswer<T>(c: Context, value: T): ReturnType<typeof c.json<T, 200>> {
  return jsonStream(value, 200) as ReturnType<typeof c.json<T, 200>>;
}

/** A Response whose body is `value` as JSON, serialised a piece at a time (see the module comment). */
export function jsonStream(value: unknown, status: number): Response {
  const pieces = jsonPieces(value), encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await nextTurn();
      const start = performance.now();
      let text = "", size = 0;
      const flush = () => {
        if (text) controller.enqueue(encoder.encode(text));
        text = "";
      };
      while (size < PULL_CHARS && (!size || performance.now() - start < TURN_MS)) {
        const next = pieces.next();
        if (next.done) {
          flush();
          return controller.close();
        }
        if (typeof next.value === "string") text += next.value;
        else {
          flush();
          controller.enqueue(next.value);
        }
        size += next.value.length;
      }
      flush();
    },
  });
  return new Response(body, { status, headers: { "content-type": "application/json" } });
}
