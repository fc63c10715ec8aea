/** Timed HTTP requests of bench/http_end_to_end.ts and what it reads from their answers. */
import { curlUpload, hasCurl } from "../upload.ts";

export interface Answer {
  status: number;
  ms: number;
  bytes: number;
  text: string;
  headers: Headers;
}

/** One request, timed from its start to the last byte of the answer. */
export async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const t0 = performance.now();
  const res = await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(3_600_000), ...init });
  const buf = new Uint8Array(await res.arrayBuffer());
  const ms = performance.now() - t0;
  return {
    status: res.status,
    ms,
    bytes: buf.length,
    text: new TextDecoder().decode(buf),
    headers: res.headers,
  };
}

/**
 * A file POSTed as a user's curl sends it (bench/upload.ts: Deno's own fetch streaming a body costs the
 * server far more per chunk), timed as `request` times; with fetch where there is no curl.
 */
export async function upload(url: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const t0 = performance.now();
  if (!(await hasCurl())) {
    const file = await Deno.open(path);
    return await request(url, { method: "POST", headers, body: file.readable });
  }
  const res = await curlUpload(url, path, headers);
  const buf = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(buf);
  return { status: res.status, ms: performance.now() - t0, bytes: buf.length, text, headers: res.headers };
}

/** An answer's JSON body ({} when it is not JSON). */
export const jsonOf = (a: Answer): Record<string, unknown> => {
  try {
    return JSON.parse(a.text);
  } catch {
    return {};
  }
};

/** The timing fields an answer carries (anywhere in it, a level or two down), as one line. */
export function timingFields(v: unknown): string {
  const out: string[] = [];
  const walk = (x: unknown, path: string, depth: number) => {
    if (!x || typeof x !== "object" || Array.isArray(x) || depth > 2) return;
    for (const [k, val] of Object.entries(x)) {
      const p = path ? `${path}.${k}` : k;
      if (k === "phases" || k === "elapsed_ms" || k === "solver_seconds" || k === "timing_ms") {
        out.push(`${p}=${JSON.stringify(val)}`);
      } else walk(val, p, depth + 1);
    }
  };
  walk(v, "", 0);
  return out.join(" ");
}
