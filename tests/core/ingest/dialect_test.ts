/** CSV dialects and limits (issue 21): the delimiter detected or given, and the column limit. */
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type CsvDialect,
  detectDelimiter,
  formatOf,
  MAX_COLUMNS,
  readRecords,
} from "../../../core/ingest/records.ts";
import { readCsv } from "../../../core/ingest/csv.ts";
import { BadRequestError } from "../../../core/errors.ts";

async function* chunksOf(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function records(text: string, dialect: CsvDialect = { delimiter: null }, size = 5) {
  const out: Record<string, unknown>[] = [];
  for await (const r of readRecords("csv", chunksOf(text, size), undefined, dialect)) out.push(r);
  return out;
}

Deno.test("detectDelimiter: the delimiter that splits the header and the rows alike", async () => {
  assert.equal(await detectDelimiter("a;b;c\n1,5;2;3\n", true), ";"); // decimal commas
  assert.equal(await detectDelimiter("city\tpop\nParis, FR\t2\n", true), "\t");
  assert.equal(await detectDelimiter("a|b\n1|2\n", true), "|");
  assert.equal(await detectDelimiter("a,b\n1,2\n", true), ",");
  // quoted fields respected: the commas are inside quotes, the semicolons split
  assert.equal(await detectDelimiter('"x, y";"z, w"\n"1,2";3\n', true), ";");
  // a quoted line break does not make a short row
  assert.equal(await detectDelimiter('a;b\n"multi\nline";2\n3;4\n', true), ";");
  // the row most consistent with the header wins over the one giving more fields in the header
  assert.equal(await detectDelimiter("a,b,c;d\n1;2\n3;4\n5;6\n", true), ";");
  // a tie in consistency: more fields win, then the order , ; tab |
  assert.equal(await detectDelimiter("a;b;c,d\n1;2;3,4\n", true), ";");
  assert.equal(await detectDelimiter("a,b;c\n1,2;3\n", true), ",");
  // one column (nothing splits the header), or nothing at all
  assert.equal(await detectDelimiter("only\n1\n", true), ",");
  assert.equal(await detectDelimiter("", true), ",");
});

Deno.test("detectDelimiter: a sample cut mid-row judges the rows before the cut", async () => {
  // the last row, cut after "3", would be a short row for ';'
  assert.equal(await detectDelimiter("a;b\n1;2\n3", false), ";");
  // a quoted field still open at the cut
  assert.equal(await detectDelimiter('a|b\n1|2\n"open', false), "|");
});

Deno.test("readRecords csv: the detected delimiter is recorded and reads the same in any chunking", async () => {
  const text = '\uFEFFname;price;note\nana;1,5;"a;b"\n"bo\nbo";2;\n';
  const expected = [{ name: "ana", price: "1,5", note: "a;b" }, { name: "bo\nbo", price: 2, note: null }];
  for (const size of [1, 3, 7, text.length]) {
    const dialect: CsvDialect = { delimiter: null };
    assert.deepEqual(await records(text, dialect, size), expected, `chunks of ${size}`);
    assert.equal(dialect.delimiter, ";");
  }
  // a given delimiter is used as is
  const given: CsvDialect = { delimiter: "," };
  assert.deepEqual(await records("a;b,c\n1;2,3\n", given), [{ "a;b": "1;2", c: 3 }]);
  assert.equal(given.delimiter, ",");
});

Deno.test("readRecords csv: any delimiter round-trips a table of quoted cells (property)", async () => {
  const cell = fc.oneof(fc.string(), fc.constantFrom(",", ";", "\t", "|", '"', "\n", "a b"));
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(",", ";", "\t", "|"),
      fc.array(fc.array(cell, { minLength: 2, maxLength: 4 }), { minLength: 2, maxLength: 6 }),
      fc.integer({ min: 1, max: 9 }),
      async (d, table, size) => {
        const width = table[0].length;
        const rows = table.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? "x"));
        const header = rows[0].map((_, i) => `c${i}`);
        const text = [header, ...rows].map((r) => r.map((f) => `"${f.replaceAll('"', '""')}"`).join(d))
          .join("\n");
        const dialect: CsvDialect = { delimiter: null };
        const got = await records(text, dialect, size);
        assert.equal(dialect.delimiter, d);
        assert.equal(got.length, rows.length);
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("readCsv: a row past the field limit is refused when the field past it starts", async () => {
  const wide = Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(",") + "\n1\n";
  const started = performance.now();
  await assert.rejects(
    async () => {
      for await (const _ of readRecords("csv", chunksOf(wide, 65_536))) { /* read */ }
    },
    (e: Error) => {
      assert.ok(e instanceof BadRequestError);
      assert.equal(
        e.message,
        `line 1: more than ${MAX_COLUMNS} fields (an upload has at most ${MAX_COLUMNS} columns)`,
      );
      return true;
    },
  );
  assert.ok(performance.now() - started < 1000);
  // exactly at the limit, the header is read; a repeated name is found without comparing every pair
  const atLimit = Array.from({ length: MAX_COLUMNS }, (_, i) => `c${i}`);
  const ok = await Array.fromAsync(
    readRecords("csv", chunksOf(`${atLimit.join(",")}\n${"1,".repeat(9999)}1\n`, 4096)),
  );
  assert.equal(Object.keys(ok[0]).length, MAX_COLUMNS);
  atLimit[MAX_COLUMNS - 1] = "c0";
  await assert.rejects(
    Array.fromAsync(readRecords("csv", chunksOf(`${atLimit.join(",")}\n`, 4096))),
    /line 1: the header names column 'c0' twice/,
  );
  // the reader alone, with a small limit: the line is the row's first
  await assert.rejects(
    Array.fromAsync(readCsv(chunksOf('a,b\n"x\ny",2,3\n', 2), ",", 2)),
    /line 2: more than 2 fields/,
  );
});

Deno.test("formatOf: text/tab-separated-values is TSV", () => {
  assert.equal(formatOf("text/tab-separated-values; charset=utf-8"), "tsv");
  assert.equal(formatOf("text/csv"), "csv");
});
