/**
 * The request body limit (BODY_LIMIT_MB) without buffering: Hono's `bodyLimit` reads a body sent
 * without Content-Length (chunked) whole into memory before the route sees a byte, which would hold a
 * 256 MB upload in memory and defeat streaming imports. Here the body is counted as the route reads
 * it; past the limit the read fails, the route's own failure path runs (an import undoes itself), and
 * the answer is a 413.
 */
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./env.ts";

/** 413 for a declared Content-Length over `maxBytes`, or once a streamed body passes it. */
export function streamingBodyLimit(maxBytes: number, detail: string) {
  const tooLarge = () => Response.json({ detail }, { status: 413 });
  return createMiddleware<AppEnv>(async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    const declared = raw.headers.get("content-length");
    if (declared !== null && !raw.headers.has("transfer-encoding")) {
      return Number(declared) > maxBytes ? tooLarge() : next();
    }
    let size = 0, exceeded = false;
    const counted = raw.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          size += chunk.byteLength;
          if (size <= maxBytes) return out.enqueue(chunk);
          exceeded = true;
          out.error(new RangeError(detail));
        },
      }),
    );
    c.req.raw = new Request(raw, { body: counted, duplex: "half" } as RequestInit);
    await next();
    // whatever the route answered to its failed read (onError has run by now), the cause was the size
    if (exceeded) c.res = tooLarge();
  });
}
