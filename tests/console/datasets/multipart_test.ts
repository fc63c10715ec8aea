/**
 * The console's streaming multipart reader against bodies Deno's own FormData encoder writes, cut into
 * chunks at every possible place (a boundary split across two reads is the case that breaks readers).
 */
import assert from "node:assert/strict";
import { boundaryOf, multipartParts, partText } from "../../../routes/console/datasets/multipart.ts";
import { BadRequestError } from "../../../core/errors.ts";

/** A form encoded by the platform: its body bytes and its boundary. */
async function encode(form: FormData): Promise<{ bytes: Uint8Array; boundary: string }> {
  const req = new Request("http://x/", { method: "POST", body: form });
  const boundary = boundaryOf(req.headers.get("content-type") ?? "");
  assert.ok(boundary, "FormData bodies name a boundary");
  return { bytes: new Uint8Array(await req.arrayBuffer()), boundary };
}

/** The bytes as a stream of chunks cut at the given offsets. */
function chunked(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const points = [0, ...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length];
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i + 1 >= points.length) return controller.close();
      controller.enqueue(bytes.slice(points[i], points[i + 1]));
      i++;
    },
  });
}

/** Every part as name, filename and text. */
async function read(body: ReadableStream<Uint8Array>, boundary: string, max = 1 << 20) {
  const out: { name: string; filename: string | null; text: string }[] = [];
  for await (const part of multipartParts(body, boundary)) {
    out.push({ name: part.name, filename: part.filename, text: await partText(part, max) });
  }
  return out;
}

/**
 * A file's content with what a reader may take for a boundary (Deno's are "----" and 28 random digits):
 * a boundary's start, a bare "--", CRLFs, and a last line that runs into the real delimiter ("\r\n-").
 */
const TRICKY = `a,b\r\n1,2\r\n------1234567\r\n\r\n--\r\n"x\r\ny",3\r\nlast\r\n-`;

Deno.test("multipart: fields and a file, whatever the chunking", async () => {
  const form = new FormData();
  form.append("_csrf", "tok-123");
  form.append("database", "uploads");
  form.append("name", "");
  form.append("label", 'a "quoted", ünïcode name');
  form.append("file", new File([TRICKY], 'my "data".csv', { type: "text/csv" }));
  const { bytes, boundary } = await encode(form);
  const expected = [
    { name: "_csrf", filename: null, text: "tok-123" },
    { name: "database", filename: null, text: "uploads" },
    { name: "name", filename: null, text: "" },
    { name: "label", filename: null, text: 'a "quoted", ünïcode name' },
    { name: "file", filename: 'my "data".csv', text: TRICKY },
  ];
  assert.deepEqual(await read(chunked(bytes, []), boundary), expected);
  for (let cut = 1; cut < bytes.length; cut++) {
    assert.deepEqual(await read(chunked(bytes, [cut]), boundary), expected, `one cut at ${cut}`);
  }
  for (let size = 1; size <= 7; size++) {
    const cuts = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => i * size);
    assert.deepEqual(await read(chunked(bytes, cuts), boundary), expected, `chunks of ${size}`);
  }
});

Deno.test("multipart: a part left unread is skipped; the next one comes whole", async () => {
  const form = new FormData();
  form.append("skip", new File(["x".repeat(100_000)], "big.bin"));
  form.append("after", "kept");
  const { bytes, boundary } = await encode(form);
  const seen: string[] = [];
  for await (const part of multipartParts(chunked(bytes, [10, 5000, 70_000]), boundary)) {
    if (part.name === "skip") {
      for await (const _ of part.body) break; // stops after one chunk
      continue;
    }
    seen.push(`${part.name}=${await partText(part)}`);
  }
  assert.deepEqual(seen, ["after=kept"]);
});

Deno.test("multipart: malformed bodies are 400s naming what is wrong", async () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  const parse = (s: string) => read(chunked(enc(s), []), "XYZ", 64 * 1024);
  await assert.rejects(
    parse("no boundary at all"),
    (e) => e instanceof BadRequestError && /no part/.test(e.message),
  );
  await assert.rejects(
    parse('--XYZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue without an end'),
    (e) => e instanceof BadRequestError && /ends inside a part/.test(e.message),
  );
  await assert.rejects(
    parse("--XYZ\r\nContent-Type: text/plain\r\n\r\nx\r\n--XYZ--\r\n"),
    (e) => e instanceof BadRequestError && /has no name/.test(e.message),
  );
  await assert.rejects(
    parse('--XYZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n' + "y".repeat(70_000) + "\r\n--XYZ--"),
    (e) => e instanceof BadRequestError && /longer than/.test(e.message),
  );
  assert.deepEqual(
    await parse('preamble\r\n--XYZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--XYZ--'),
    [
      { name: "a", filename: null, text: "1" },
    ],
  );
});

Deno.test("boundaryOf: only multipart/form-data with a boundary", () => {
  assert.equal(boundaryOf("multipart/form-data; boundary=abc"), "abc");
  assert.equal(boundaryOf('multipart/form-data; charset=utf-8; boundary="a b:c"'), "a b:c");
  assert.equal(boundaryOf("multipart/form-data"), null);
  assert.equal(boundaryOf("application/x-www-form-urlencoded"), null);
  assert.equal(boundaryOf(undefined), null);
});
