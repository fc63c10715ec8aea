/** TSV uploads (the console's upload, `deno task import x.tsv`): CSV's reader with a tab between fields. */
import assert from "node:assert/strict";
import { formatOfFileName, readRecords } from "../../../core/ingest/records.ts";

async function* chunksOf(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function all(text: string, size = 2) {
  const out: Record<string, unknown>[] = [];
  for await (const rec of readRecords("tsv", chunksOf(text, size))) out.push(rec);
  return out;
}

Deno.test("readRecords tsv: tabs split fields, commas stay in them, cells are typed", async () => {
  assert.deepEqual(await all('city\tpop\tnote\nParis, FR\t2.1\t\nOslo\t0.7\t"a\tb"\n'), [
    { city: "Paris, FR", pop: 2.1, note: null },
    { city: "Oslo", pop: 0.7, note: "a\tb" },
  ]);
  await assert.rejects(all("a\tb\n1\n"), /line 2: expected 2 fields, found 1/);
});

Deno.test("formatOfFileName: .tsv and .tab are TSV", () => {
  assert.equal(formatOfFileName("x.tsv"), "tsv");
  assert.equal(formatOfFileName("X.TAB"), "tsv");
});
