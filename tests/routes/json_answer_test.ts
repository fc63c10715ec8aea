import assert from "node:assert/strict";
import fc from "fast-check";
import { jsonPieces, jsonStream } from "../../routes/http/json_answer.ts";

Deno.test("json answer: the pieces join to JSON.stringify's text for any JSON-like value", () => {
  const value = fc.oneof(fc.jsonValue(), fc.object(), fc.array(fc.record({ a: fc.option(fc.integer()) })));
  fc.assert(fc.property(value, (v) => assert.equal([...jsonPieces(v)].join(""), JSON.stringify(v))));
  // what JSON.stringify leaves out or turns into null, and objects with toJSON
  const odd = { a: undefined, f: () => 1, d: new Date(0), arr: [undefined, () => 1, NaN], n: null };
  assert.equal([...jsonPieces(odd)].join(""), JSON.stringify(odd));
});

Deno.test("json answer: a 100,000-line answer streams as the same text, in several chunks", async () => {
  const lines = Array.from({ length: 100_000 }, (_, i) => ({ idx: i, doc_id: `d${i}`, y_pred: i % 2 }));
  const value = { n: lines.length, mitigated_preds: lines, nested: { rows: lines.slice(0, 5000) } };
  const res = jsonStream(value, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  let chunks = 0, text = "";
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) (chunks++, text += decoder.decode(chunk, { stream: true }));
  assert.equal(text, JSON.stringify(value));
  assert.ok(chunks > 1, `${chunks} chunk(s)`);
});
