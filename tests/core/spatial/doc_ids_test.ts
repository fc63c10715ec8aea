import assert from "node:assert/strict";
import fc from "fast-check";
import { docIdAt, docIdCount, docIdIn, packIds } from "../../../core/spatial/doc_ids.ts";
import { sharedAlloc } from "../../../core/memory.ts";

const readAll = (packed: Parameters<typeof docIdAt>[0], n: number) =>
  Array.from({ length: n }, (_, i) => docIdAt(packed, i));

Deno.test("packed document ids read back as the list they came from, any ids, any piece size (property)", () => {
  // ASCII alone (bytes), and with characters beyond it: accents, an emoji, a lone surrogate (code units)
  const id = fc.string({
    unit: fc.constantFrom("a", "0", "é", "\u{1F600}", "\uD800", "\u0000", "-"),
    maxLength: 6,
  });
  fc.assert(
    fc.property(fc.array(id, { maxLength: 60 }), fc.integer({ min: 1, max: 9 }), (ids, per) => {
      const packed = packIds(ids, per);
      assert.equal(docIdCount(packed), ids.length);
      assert.deepEqual(readAll(packed, ids.length), ids);
      assert.equal(docIdAt(packed, ids.length), undefined);
      assert.equal(docIdAt(packed, -1), undefined);
      // typed arrays: what a worker receives reads the same, copied or shared
      assert.deepEqual(readAll(structuredClone(packed), ids.length), ids);
      assert.deepEqual(readAll(structuredClone(packIds(ids, per, sharedAlloc)), ids.length), ids);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("packed document ids: three to a piece, by hand", () => {
  const packed = packIds(["ab", "", "cde", "f"], 3);
  assert.ok(packed.units instanceof Uint8Array); // all ASCII: a byte a character
  assert.equal(new TextDecoder().decode(packed.units), "abcdef");
  assert.deepEqual([...packed.starts], [0, 5, 6]);
  assert.deepEqual([...packed.ends], [2, 2, 5, 1]);
  assert.equal(docIdAt(packed, 1), "");
  assert.equal(docIdAt(packed, 2), "cde");
  assert.equal(docIdAt(packed, 3), "f");
  // a writer gets the piece and where the id is in it
  const span = new Int32Array(2);
  assert.equal(docIdIn(packed, 2, span), "abcde");
  assert.deepEqual([...span], [2, 5]);
  // one id beyond ASCII: every id as UTF-16 code units
  const wide = packIds(["x", "é\uD800"], 3);
  assert.ok(wide.units instanceof Uint16Array);
  assert.deepEqual([...wide.units], [0x78, 0xe9, 0xd800]);
  assert.equal(docIdAt(wide, 1), "é\uD800");
  // a list reads as itself
  assert.equal(docIdAt(["x", "y"], 1), "y");
  assert.equal(docIdCount(["x", "y"]), 2);
});

Deno.test("packed document ids in shared memory are posted to a worker without a copy", () => {
  const packed = packIds(["a", "b"], 8192, sharedAlloc);
  for (const a of [packed.units, packed.starts, packed.ends]) {
    assert.ok(a.buffer instanceof SharedArrayBuffer);
  }
  const crossed = structuredClone(packed);
  packed.units[1] = "c".charCodeAt(0); // the same memory: a write shows on the other side
  assert.equal(docIdAt(crossed, 1), "c");
});
