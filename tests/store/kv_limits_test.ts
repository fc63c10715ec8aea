/** KV's limits as the store reckons them (store/kv_limits.ts). */
import assert from "node:assert/strict";
import fc from "fast-check";
import { valueBytes } from "../../store/kv_limits.ts";

/** JSON values whose strings need no escapes: the values valueBytes sizes at their JSON length or more. */
const plain = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }),
    fc.array(fc.integer({ min: -5_000_000, max: 5_000_000 }), { maxLength: 30 }), // lists of ids
    fc.stringMatching(/^[ -!#-[\]-~]*$/),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.stringMatching(/^[a-z_]{0,6}$/), tie("value"), { maxKeys: 4 }),
  ),
})).value;

Deno.test("valueBytes is at least the JSON text's length of any value without escapes (property)", () => {
  fc.assert(
    fc.property(plain, (v) => {
      assert.ok(valueBytes(v) >= JSON.stringify(v).length, JSON.stringify(v));
    }),
    { numRuns: 3000 },
  );
});

Deno.test("valueBytes: integers by their digits rounded up, other numbers 25, in lists and alone", () => {
  assert.equal(valueBytes(7), 1);
  assert.equal(valueBytes(-7), 2);
  assert.equal(valueBytes(12345), 6); // 5 digits, counted as 6
  assert.equal(valueBytes(0.5), 25);
  const longest = -1.0105400346059291e-6; // "-0.0000010105400346059291": 25 characters
  assert.equal(valueBytes(longest), JSON.stringify(longest).length);
  assert.equal(valueBytes([1, 22, 333]), 2 + (1 + 1) + (2 + 1) + (3 + 1)); // brackets, each item and a comma
  assert.equal(valueBytes([0.5, -3]), 2 + 26 + 3);
});
