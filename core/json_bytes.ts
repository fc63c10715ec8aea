/**
 * JSON text written straight into UTF-8 bytes, for lists of many small objects in an answer (a mitigation's
 * line per individual): making the objects, `JSON.stringify` and encoding the text held the event loop
 * several times longer than writing the bytes does (BENCHMARKS.md, HTTP end to end).
 * Each writer puts its text at `at` in a buffer with room for it and answers where it ends; plain functions,
 * which V8 inlines into the caller's loop (methods of a writer object that kept its own place took twice as
 * long). The text is JSON.stringify's, byte for byte (tests/core/json_bytes_test.ts).
 */

const encoder = new TextEncoder();

/** Text already JSON and ASCII (keys, punctuation, `true`) as bytes, made once and put with `putRaw`. */
export const jsonAscii = (text: string): Uint8Array => encoder.encode(text);

/** Puts `bytes` at `at`; answers where they end. */
export function putRaw(buf: Uint8Array, at: number, bytes: Uint8Array): number {
  for (let k = 0; k < bytes.length; k++) buf[at++] = bytes[k];
  return at;
}

/** Puts a non-negative integer below 2^31 (up to 10 bytes) as JSON.stringify writes it; answers where it ends. */
export function putUint(buf: Uint8Array, at: number, v: number): number {
  let digits = 1;
  for (let p = 10; p <= v && digits < 10; p *= 10) digits++;
  const end = at + digits;
  for (let k = end - 1; k >= at; k--) {
    buf[k] = 48 + v % 10;
    v = (v / 10) | 0;
  }
  return end;
}

/**
 * Puts `s.slice(from, to)` as a JSON string, as JSON.stringify writes it: printable ASCII is copied,
 * anything else (a quote, a backslash, a control or non-ASCII character) goes through JSON.stringify and
 * the encoder. Needs room for `jsonStringRoom` bytes; answers where it ends.
 */
export function putString(buf: Uint8Array, at: number, s: string, from: number, to: number): number {
  const start = at;
  buf[at++] = 34;
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x20 || c > 0x7e || c === 34 || c === 92) return putEscaped(buf, start, s.slice(from, to));
    buf[at++] = c;
  }
  buf[at++] = 34;
  return at;
}

/** Bytes a JSON string of `length` characters takes at most (`\uXXXX` each, and the quotes). */
export const jsonStringRoom = (length: number): number => 6 * length + 2;

function putEscaped(buf: Uint8Array, at: number, s: string): number {
  const { written } = encoder.encodeInto(JSON.stringify(s), buf.subarray(at));
  return at + written;
}

/** `buf` with room for `n` bytes from `at`: itself, or a larger copy of its first `at` bytes. */
export function withRoom(buf: Uint8Array<ArrayBuffer>, at: number, n: number): Uint8Array<ArrayBuffer> {
  if (at + n <= buf.length) return buf;
  const grown = new Uint8Array(Math.max(at + n, 2 * buf.length));
  grown.set(buf.subarray(0, at));
  return grown;
}
