/**
 * The JSON-array scanner (core/ingest/json_array.ts) skips to the next character that matters with the
 * regular expression engine; these properties hold it to what reading the whole text would give, under
 * any chunking: the same records, each element's line, and a malformed element named by item and line.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { arrayElements } from "../../../core/ingest/json_array.ts";
import { type Position, readRecords } from "../../../core/ingest/records.ts";

/** `text` in pieces of the given sizes, repeated. */
async function* pieces(text: string, sizes: number[]): AsyncGenerator<string> {
  for (let at = 0, i = 0; at < text.length; i++) {
    const n = sizes[i % sizes.length];
    yield text.slice(at, at + n);
    at += n;
  }
}

/** Objects whose strings hold what the scanner must not take for structure. */
const tricky = fc.string({ unit: fc.constantFrom("a", ",", "[", "]", "{", "}", '"', "\\", "\n", "é", " ") });
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(tricky, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean()),
  node: fc.oneof(
    { depthSize: "small" },
    tie("leaf"),
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(tricky, tie("node"), { maxKeys: 3 }),
  ),
})).node;
const record = fc.dictionary(tricky, value, { maxKeys: 4 });
const chunking = fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 4 });

/** The array's text with each element on its own line(s) (indented by `indent`), and each element's line. */
function layout(items: unknown[], indent: number | undefined) {
  let text = "[\n";
  let line = 2;
  const lines: number[] = [];
  items.forEach((item, i) => {
    const element = JSON.stringify(item, null, indent);
    lines.push(line);
    text += element + (i + 1 < items.length ? ",\n" : "\n");
    line += element.split("\n").length;
  });
  return { text: text + "]\n", lines };
}

Deno.test("json array: any records and chunking: what JSON.parse reads, each on its line", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(record, { maxLength: 6 }),
      fc.constantFrom(undefined, 1, 2),
      chunking,
      async (items, indent, sizes) => {
        const { text, lines } = layout(items, indent);
        const got = [];
        for await (const e of arrayElements(pieces(text, sizes))) got.push(e);
        assert.deepEqual(got.map((e) => JSON.parse(e.text)), JSON.parse(JSON.stringify(items)));
        assert.deepEqual(got.map((e) => e.index), items.map((_, i) => i));
        assert.deepEqual(got.map((e) => e.line), lines);
      },
    ),
    { numRuns: 400 },
  );
});

Deno.test("json array: a malformed element is a 400 naming its item and line, any chunking", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(record, { minLength: 1, maxLength: 5 }),
      fc.nat(),
      fc.constantFrom('{"a":}', '{"a" 1}', "{oops}", '{"a":[1,]}', '{"a":"x\\q"}'), // brackets balanced
      chunking,
      async (items, at, broken, sizes) => {
        const bad = at % items.length;
        const texts = items.map((item) => JSON.stringify(item, null, 1));
        texts[bad] = broken;
        const body = "[\n" + texts.join(",\n") + "\n]\n";
        const line = 2 + texts.slice(0, bad).reduce((n, t) => n + t.split("\n").length, 0);
        const position: Position = { where: "" };
        await assert.rejects(
          async () => {
            for await (const _ of readRecords("json", pieces(body, sizes), position));
          },
          (e: Error) => {
            assert.match(e.message, new RegExp(`^item ${bad} \\(line ${line}\\): not valid JSON`));
            return true;
          },
        );
      },
    ),
    { numRuns: 300 },
  );
});
