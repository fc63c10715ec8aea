import assert from "node:assert/strict";
import fc from "fast-check";
import { readCsv } from "../../../core/ingest/csv.ts";
import { csvRecords, ndjsonRecords } from "../../../core/ingest/records.ts";
import { inferCell } from "../../../core/ingest/values.ts";
import { BadRequestError } from "../../../core/errors.ts";

async function* chunksOf(text: string, sizes: number[] = []): AsyncGenerator<string> {
  let i = 0;
  for (const s of sizes) {
    if (i >= text.length) break;
    yield text.slice(i, i + s);
    i += s;
  }
  if (i < text.length) yield text.slice(i);
}

async function rows(text: string, sizes?: number[]) {
  const out = [];
  for await (const r of readCsv(chunksOf(text, sizes))) out.push(r);
  return out;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

Deno.test("csv: RFC 4180 quoting, doubled quotes, embedded newlines, CRLF, line numbers", async () => {
  const text = 'a,b,c\r\n1,"x, y",3\r\n"multi\nline","say ""hi""",\r\n\r\nlast,row,here';
  assert.deepEqual(await rows(text), [
    { line: 1, fields: ["a", "b", "c"] },
    { line: 2, fields: ["1", "x, y", "3"] },
    { line: 3, fields: ["multi\nline", 'say "hi"', ""] },
    { line: 6, fields: ["last", "row", "here"] },
  ]);
});

Deno.test("csv: the result does not depend on how the text is cut into chunks", async () => {
  const cell = fc.oneof(fc.string(), fc.constantFrom('"', '""', ",", "\n", "\r\n", 'a"b'));
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
      fc.array(fc.integer({ min: 1, max: 7 }), { maxLength: 40 }),
      async (table, sizes) => {
        const text = table.map((r) => r.map((f) => `"${f.replaceAll('"', '""')}"`).join(",")).join("\n");
        const whole = await rows(text);
        assert.deepEqual(await rows(text, sizes), whole);
        assert.deepEqual(whole.map((r) => r.fields), table);
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("csv: an unclosed quote is a 400 naming the line where the row starts", async () => {
  await assert.rejects(rows('a,b\n1,2\n3,"open\nmore'), (e: Error) => {
    assert.ok(e instanceof BadRequestError);
    assert.match(e.message, /line 3/);
    return true;
  });
});

Deno.test("csv records: typed cells and a short row named by its line", async () => {
  const recs = await collect(csvRecords(chunksOf("id,zip,x,ok,note\n1,00123,2.5,true,\n2,9,-1e3,FALSE,hi")));
  assert.deepEqual(recs, [
    { id: 1, zip: "00123", x: 2.5, ok: true, note: null },
    { id: 2, zip: 9, x: -1000, ok: false, note: "hi" },
  ]);
  await assert.rejects(collect(csvRecords(chunksOf("a,b\n1,2\n3\n"))), /line 3: expected 2 fields, found 1/);
  await assert.rejects(collect(csvRecords(chunksOf("a,a\n1,2\n"))), /names column 'a' twice/);
});

Deno.test("inferCell: numbers, booleans, empties and text", () => {
  assert.equal(inferCell("42"), 42);
  assert.equal(inferCell(" -0.5 "), -0.5);
  assert.equal(inferCell(".5"), 0.5);
  assert.equal(inferCell("0"), 0);
  assert.equal(inferCell("0.25"), 0.25);
  assert.equal(inferCell("007"), "007");
  assert.equal(inferCell("1e400"), "1e400");
  assert.equal(inferCell("True"), true);
  assert.equal(inferCell("  "), null);
  assert.equal(inferCell("12abc"), "12abc");
});

Deno.test("ndjson: blank lines skipped, a bad line named, exported $oid ids read", async () => {
  const recs = await collect(ndjsonRecords(chunksOf('{"a":1}\n\n{"_id":{"$oid":"abc"},"a":2}\n', [3, 5])));
  assert.deepEqual(recs, [{ a: 1 }, { _id: "abc", a: 2 }]);
  await assert.rejects(collect(ndjsonRecords(chunksOf('{"a":1}\n[1]\n'))), /line 2: expected a JSON object/);
  await assert.rejects(collect(ndjsonRecords(chunksOf('{"a":1}\n{oops\n'))), /line 2: not valid JSON/);
});
