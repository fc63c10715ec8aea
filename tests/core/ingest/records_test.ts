import assert from "node:assert/strict";
import {
  formatOfFileName,
  type Position,
  readRecords,
  type UploadFormat,
} from "../../../core/ingest/records.ts";

async function* chunksOf(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** Each record with the position the reader gave it when it was yielded. */
async function located(format: UploadFormat, text: string, size = 3) {
  const position: Position = { where: "" };
  const out: [string, Record<string, unknown>][] = [];
  for await (const rec of readRecords(format, chunksOf(text, size), position)) {
    out.push([position.where, rec]);
  }
  return out;
}

Deno.test("readRecords: the position names each record's line, or its array item", async () => {
  // the quoted field spans lines 2-3, so the next row starts on line 4
  assert.deepEqual(await located("csv", 'a,b\n1,"x\ny"\n2,z\n'), [
    ["line 2", { a: 1, b: "x\ny" }],
    ["line 4", { a: 2, b: "z" }],
  ]);
  assert.deepEqual(await located("ndjson", '{"a":1}\n\n  \n{"a":2}'), [
    ["line 1", { a: 1 }],
    ["line 4", { a: 2 }],
  ]);
  assert.deepEqual(await located("json", '[{"a":1},{"a":2}]'), [["item 0", { a: 1 }], ["item 1", { a: 2 }]]);
});

Deno.test("ndjson: a line longer than many chunks reads whole, and the lines after it count on", async () => {
  const long = "é".repeat(100_000);
  const text = `{"s":"${long}"}\n{"a":1}\n`;
  const recs = await located("ndjson", text, 7);
  assert.equal(recs.length, 2);
  assert.equal((recs[0][1].s as string).length, 100_000);
  assert.deepEqual(recs[1], ["line 2", { a: 1 }]);
});

Deno.test("formatOfFileName: only extensions that name a format", () => {
  assert.equal(formatOfFileName("data/People.CSV"), "csv");
  assert.equal(formatOfFileName("x.json"), "json");
  assert.equal(formatOfFileName("x.ndjson"), "ndjson");
  assert.equal(formatOfFileName("x.jsonl"), "ndjson");
  assert.equal(formatOfFileName("x.txt"), null);
  assert.equal(formatOfFileName("csv"), null);
  assert.equal(formatOfFileName("dir.csv/file"), null);
});

Deno.test("json: elements split at top-level commas only, across any chunking", async () => {
  // commas, brackets, braces and escaped quotes inside strings and nested values are not boundaries
  const items = [
    { a: "x,]}", b: [1, [2, { c: 3 }]] },
    { s: 'quote \\" and \\\\', n: null },
    { é: "ünïcode\nline" },
    {},
  ];
  const text = `  [\n${items.map((i) => JSON.stringify(i)).join(" ,\n ")}\n]  \n`;
  for (const size of [1, 2, 5, 64, text.length]) {
    const got = await located("json", text, size);
    assert.deepEqual(got.map(([w]) => w), ["item 0", "item 1", "item 2", "item 3"], `chunks of ${size}`);
    assert.deepEqual(got.map(([, r]) => r), items, `chunks of ${size}`);
  }
  assert.deepEqual(await located("json", "[ ]"), []);
});

Deno.test("json: a malformed array is a 400 naming the item and line, or what is wrong", async () => {
  const fails = async (text: string, message: RegExp) => {
    await assert.rejects(() => located("json", text, 4), (e: Error) => message.test(e.message));
  };
  await fails('{"a":1}', /must be an array of objects/);
  await fails("", /must be an array of objects/);
  await fails('[{"a":1},\n{"a":}]', /^item 1 \(line 2\): not valid JSON/);
  await fails('[{"a":1},]', /^item 1 \(line 1\): not valid JSON/);
  await fails('[{"a":1}', /^line 1: the body ends before the array does/);
  await fails('[{"a":1}]\n[{"b":2}]', /^line 2: text after the end of the array/);
  await fails('[{"a":1}, 7]', /^item 1: expected a JSON object/);
});

Deno.test("json: a 200,000-item array streams out before the body has ended", async () => {
  let sent = 0;
  async function* body(): AsyncGenerator<string> {
    yield "[";
    for (let i = 0; i < 200_000; i++) {
      sent = i;
      yield (i ? "," : "") + `{"i":${i}}`;
    }
    yield "]";
  }
  let count = 0, firstSeenAt = -1;
  for await (const rec of readRecords("json", body())) {
    if (count === 0) firstSeenAt = sent;
    assert.equal(rec.i, count++);
  }
  assert.equal(count, 200_000);
  assert.ok(firstSeenAt < 10, `the first record came after ${firstSeenAt} items were sent`);
});
