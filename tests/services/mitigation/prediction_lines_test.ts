import assert from "node:assert/strict";
import fc from "fast-check";
import { PredictionLines } from "../../../services/mitigation/prediction_lines.ts";
import { predictionChunk, predictionCuts } from "../../../services/spatial/run_chunks.ts";
import { jsonPieces, jsonStream } from "../../../routes/http/json_answer.ts";
import { packIds } from "../../../core/spatial/doc_ids.ts";

const docIds = ["a", "b", "c", "d"];
const decoder = new TextDecoder();
/** The text of jsonPieces' pieces, some of them UTF-8. */
const textOf = (pieces: Iterable<string | Uint8Array>) =>
  [...pieces].map((p) => typeof p === "string" ? p : decoder.decode(p)).join("");
const before = Uint8Array.of(0, 0, 1, 1);
const after = Uint8Array.of(0, 1, 1, 0);

Deno.test("prediction lines: the lines of the positions judged, flipped where the prediction changed", () => {
  const test = new PredictionLines(docIds, Int32Array.of(1, 3), after, before);
  assert.equal(test.length, 2);
  assert.deepEqual(test.slice(), [
    { idx: 1, doc_id: "b", y_pred: 1, flipped: true },
    { idx: 3, doc_id: "d", y_pred: 0, flipped: true },
  ]);
  const every = new PredictionLines(docIds, null, after, before);
  assert.equal(every.length, 4);
  assert.deepEqual(every.slice(1, 3), [
    { idx: 1, doc_id: "b", y_pred: 1, flipped: true },
    { idx: 2, doc_id: "c", y_pred: 1, flipped: false },
  ]);
  assert.deepEqual(every.slice(3, 99), [{ idx: 3, doc_id: "d", y_pred: 0, flipped: true }]);
  assert.equal(
    JSON.stringify({ mitigated_preds: test }),
    '{"mitigated_preds":[{"idx":1,"doc_id":"b","y_pred":1,"flipped":true},' +
      '{"idx":3,"doc_id":"d","y_pred":0,"flipped":true}]}',
  );
});

/**
 * n lines over random predictions, with every position or an ascending part of them, and ids of any
 * characters (quotes, backslashes, controls, non-ASCII, lone surrogates), as a list or packed.
 */
const linesCase = fc.integer({ min: 0, max: 6000 }).chain((n) =>
  fc.record({
    before: fc.uint8Array({ minLength: n, maxLength: n, max: 1 }),
    after: fc.uint8Array({ minLength: n, maxLength: n, max: 1 }),
    part: fc.option(fc.uniqueArray(fc.nat({ max: Math.max(0, n - 1) }), { maxLength: n })),
    odd: fc.array(fc.string({ unit: "binary", maxLength: 6 }), { minLength: 1, maxLength: 8 }),
    packed: fc.option(fc.integer({ min: 1, max: 5000 })),
  }).map(({ before, after, part, odd, packed }) => {
    const list = Array.from({ length: n }, (_, i) => i % 7 ? `doc-${i}` : `doc-${i}-${odd[i % odd.length]}é`);
    const ids = packed === null ? list : packIds(list, packed);
    const positions = n && part ? Int32Array.from(part).sort() : null;
    return { lines: new PredictionLines(ids, positions, after, before) };
  })
);

Deno.test("prediction lines: the answer streams as JSON.stringify's text, and packs as the array of its lines", async () => {
  await fc.assert(
    fc.asyncProperty(linesCase, async ({ lines }) => {
      const array = lines.slice();
      const value = { n: lines.length, mitigated_preds: lines };
      assert.equal(textOf(jsonPieces(value)), JSON.stringify({ n: lines.length, mitigated_preds: array }));
      // the bytes of any run of lines are the UTF-8 of the slice's text without its brackets
      const from = Math.floor(lines.length / 3), to = lines.length - from;
      assert.equal(
        decoder.decode(lines.jsonBytes(from, to)),
        JSON.stringify(lines.slice(from, to)).slice(1, -1),
      );
      const cuts = await predictionCuts(lines);
      assert.deepEqual(cuts, await predictionCuts(array));
      assert.equal(cuts.flags, lines.length > 0);
      const chunks = cuts.starts.map((_, c) => predictionChunk(lines, cuts, c));
      assert.deepEqual(chunks, cuts.starts.map((_, c) => predictionChunk(array, cuts, c)));
      // the chunks hold every line once, in order
      assert.deepEqual(chunks.flatMap((c) => c.ids), array.map((p) => p.doc_id));
      assert.deepEqual(chunks.flatMap((c) => ("f" in c ? c.f : [])), array.map((p) => p.flipped));
    }),
    { numRuns: 30 },
  );
  // through the response body too, several pulls long
  const big = new PredictionLines(
    Array.from({ length: 60_000 }, (_, i) => `id${i}`),
    null,
    new Uint8Array(60_000).fill(1),
    new Uint8Array(60_000),
  );
  const text = await new Response(jsonStream({ mitigated_preds: big }, 200).body).text();
  assert.equal(text, JSON.stringify({ mitigated_preds: big.slice() }));
  // and a run's chunks of them, many (ids of 3 to 7 characters), as those of the lines made one by one
  const lines = big.slice(), cuts = await predictionCuts(big);
  assert.deepEqual(cuts, await predictionCuts(lines));
  assert.ok(cuts.starts.length > 30);
  assert.deepEqual(
    cuts.starts.map((_, c) => predictionChunk(big, cuts, c)),
    cuts.starts.map((_, c) => predictionChunk(lines, cuts, c)),
  );
});
