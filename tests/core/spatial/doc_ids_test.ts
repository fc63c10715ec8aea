import assert from "node:assert/strict";
import fc from "fast-check";
import { docIdAt, docIdCount, packIds } from "../../../core/spatial/doc_ids.ts";

Deno.test("packed document ids read back as the list they came from, any ids, any piece size (property)", () => {
  const id = fc.string({ unit: fc.constantFrom("a", "0", "é", "\u{1F600}", "\u0000", "-"), maxLength: 6 });
  fc.assert(
    fc.property(fc.array(id, { maxLength: 60 }), fc.integer({ min: 1, max: 9 }), (ids, per) => {
      const packed = packIds(ids, per);
      assert.equal(docIdCount(packed), ids.length);
      assert.deepEqual(Array.from({ length: ids.length }, (_, i) => docIdAt(packed, i)), ids);
      assert.equal(docIdAt(packed, ids.length), undefined);
      assert.equal(docIdAt(packed, -1), undefined);
      // plain data: what a worker receives reads the same
      const crossed = structuredClone(packed);
      assert.deepEqual(Array.from({ length: ids.length }, (_, i) => docIdAt(crossed, i)), ids);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("packed document ids: three to a piece, by hand", () => {
  const packed = packIds(["ab", "", "cde", "f"], 3);
  assert.deepEqual(packed.pieces, ["abcde", "f"]);
  assert.deepEqual([...packed.ends], [2, 2, 5, 1]);
  assert.equal(docIdAt(packed, 1), "");
  assert.equal(docIdAt(packed, 2), "cde");
  assert.equal(docIdAt(packed, 3), "f");
  // a list reads as itself
  assert.equal(docIdAt(["x", "y"], 1), "y");
  assert.equal(docIdCount(["x", "y"]), 2);
});
