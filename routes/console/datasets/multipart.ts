/**
 * A streaming reader of `multipart/form-data` (RFC 7578): the parts one after another, each part's body
 * as a stream of bytes read straight from the request, so an uploaded file goes to the importer as it
 * arrives instead of sitting in memory whole (`Request.formData()` would hold it all). A part must be read
 * (or is skipped) before the next one comes; small text fields are read with `partText`. Take the parts
 * with `next()` when a part is to be read after the loop: leaving a `for await` closes the body's reader.
 */
import { BadRequestError } from "../../../core/errors.ts";

export interface FormPart {
  /** The field's name (Content-Disposition `name`). */
  name: string;
  /** The file's name for a file field (empty when no file was chosen), null for a plain field. */
  filename: string | null;
  contentType: string | null;
  /** The part's bytes; each chunk is a fresh view the reader never writes to again. */
  body: AsyncGenerator<Uint8Array>;
}

/** The boundary a Content-Type names, or null when it is not multipart/form-data with one. */
export function boundaryOf(contentType: string | undefined): string | null {
  if (!/^multipart\/form-data\b/i.test(contentType ?? "")) return null;
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;"]{1,70}))/i.exec(contentType!);
  return m ? (m[1] ?? m[2]) : null;
}

const CRLF = new Uint8Array([13, 10]);
const MAX_HEADER_BYTES = 16 * 1024;

/** The first index of `needle` in `hay` at or after `from`, or -1. */
function indexOf(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  const first = needle[0];
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(first, from); i !== -1 && i <= last; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** Bytes read ahead from a stream, with the position of what is not yet consumed. */
class Buffered {
  buf: Uint8Array = CRLF; // a CRLF before the body lets the first boundary match like the others
  pos = 0;
  done = false;
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  /** Reads one more chunk onto what is left; false at the end of the stream. */
  async more(): Promise<boolean> {
    if (this.done) return false;
    const { value, done } = await this.reader.read();
    if (done) {
      this.done = true;
      return false;
    }
    const rest = this.buf.subarray(this.pos);
    const next = new Uint8Array(rest.length + value.length);
    next.set(rest);
    next.set(value, rest.length);
    this.buf = next;
    this.pos = 0;
    return true;
  }

  /** Makes at least `n` unconsumed bytes available; false when the stream ends first. */
  async need(n: number): Promise<boolean> {
    while (this.buf.length - this.pos < n) if (!(await this.more())) return false;
    return true;
  }
}

/** The parameters of a Content-Disposition header (`name`, `filename`), as browsers write them. */
function disposition(value: string): { name: string | null; filename: string | null } {
  const param = (key: string) => {
    const m = new RegExp(`;\\s*${key}="((?:[^"\\\\]|\\\\.)*)"`, "i").exec(value) ??
      new RegExp(`;\\s*${key}=([^;\\s]+)`, "i").exec(value);
    if (!m) return null;
    // HTML escapes ", CR and LF in names as %22, %0D, %0A; older agents use backslashes
    return m[1].replace(/\\(.)/g, "$1").replace(/%22/g, '"').replace(/%0D/gi, "\r").replace(/%0A/gi, "\n");
  };
  return { name: param("name"), filename: param("filename") };
}

/** The parts of a multipart body, in order. A malformed body is a BadRequestError. */
export async function* multipartParts(
  body: ReadableStream<Uint8Array> | null,
  boundary: string,
): AsyncGenerator<FormPart> {
  if (!body) throw new BadRequestError("the form has no body");
  const reader = body.getReader();
  const b = new Buffered(reader);
  const delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
  const decoder = new TextDecoder();
  try {
    // skip the preamble up to the first delimiter
    for (;;) {
      const at = indexOf(b.buf, delimiter, b.pos);
      if (at !== -1) {
        b.pos = at + delimiter.length;
        break;
      }
      b.pos = Math.max(b.pos, b.buf.length - delimiter.length + 1);
      if (!(await b.more())) throw new BadRequestError("the form's body has no part");
    }
    for (;;) {
      if (!(await b.need(2))) throw new BadRequestError("the form's body ends inside a boundary");
      if (b.buf[b.pos] === 45 && b.buf[b.pos + 1] === 45) return; // "--": the closing delimiter
      // transport padding, then CRLF
      for (;;) {
        if (!(await b.need(2))) throw new BadRequestError("the form's body ends inside a boundary");
        if (b.buf[b.pos] === 13 && b.buf[b.pos + 1] === 10) break;
        if (b.buf[b.pos] !== 32 && b.buf[b.pos] !== 9) {
          throw new BadRequestError("a form boundary is malformed");
        }
        b.pos++;
      }
      b.pos += 2;
      // headers, up to the empty line
      const end = new Uint8Array([13, 10, 13, 10]);
      let headerEnd = -1;
      for (;;) {
        // an empty header block is CRLF right away
        if (await b.need(2) && b.buf[b.pos] === 13 && b.buf[b.pos + 1] === 10) {
          headerEnd = b.pos - 2;
          break;
        }
        headerEnd = indexOf(b.buf, end, b.pos);
        if (headerEnd !== -1) break;
        if (b.buf.length - b.pos > MAX_HEADER_BYTES) {
          throw new BadRequestError("a form part's headers are too long");
        }
        if (!(await b.more())) throw new BadRequestError("the form's body ends inside a part's headers");
      }
      const headerText = headerEnd >= b.pos ? decoder.decode(b.buf.subarray(b.pos, headerEnd)) : "";
      b.pos = headerEnd + 4;
      const headers = new Map<string, string>();
      for (const line of headerText.split("\r\n")) {
        const i = line.indexOf(":");
        if (i > 0) headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim());
      }
      const { name, filename } = disposition(headers.get("content-disposition") ?? "");
      if (name === null) throw new BadRequestError("a form part has no name");
      let finished = false;
      const partBody = async function* (): AsyncGenerator<Uint8Array> {
        while (!finished) {
          const at = indexOf(b.buf, delimiter, b.pos);
          if (at !== -1) {
            if (at > b.pos) yield b.buf.subarray(b.pos, at);
            b.pos = at + delimiter.length;
            finished = true;
            return;
          }
          const safe = b.buf.length - delimiter.length + 1;
          if (safe > b.pos) {
            const chunk = b.buf.subarray(b.pos, safe);
            b.pos = safe;
            yield chunk;
          }
          if (!(await b.more())) throw new BadRequestError("the form's body ends inside a part");
        }
      };
      const part: FormPart = {
        name,
        filename,
        contentType: headers.get("content-type") ?? null,
        body: partBody(),
      };
      yield part;
      for await (const _ of part.body); // whatever the reader left of this part
      if (!finished) {
        // the reader stopped the part's generator early (return/throw): skip to the delimiter by hand
        for await (const _ of partBody());
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** A small part's text (a form field), at most `max` bytes. */
export async function partText(part: FormPart, max = 64 * 1024): Promise<string> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  for await (const c of part.body) {
    n += c.length;
    if (n > max) throw new BadRequestError(`the form field '${part.name}' is longer than ${max} bytes`);
    chunks.push(c);
  }
  const all = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  return new TextDecoder().decode(all);
}

/** A part's bytes as text chunks (UTF-8), for the importer. */
export async function* partTextChunks(part: FormPart): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for await (const c of part.body) {
    const s = decoder.decode(c, { stream: true });
    if (s) yield s;
  }
  const tail = decoder.decode();
  if (tail) yield tail;
}
