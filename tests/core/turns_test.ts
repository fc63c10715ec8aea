import assert from "node:assert/strict";
import fc from "fast-check";
import { splitInTurns } from "../../core/turns.ts";

Deno.test("splitInTurns gives what String.prototype.split gives, whatever the slice", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.string({ unit: fc.constantFrom("a", "b", "\u0000", "é") })),
      fc.constantFrom("\u0000", "ab"),
      fc.integer({ min: 1, max: 4 }),
      async (parts, sep, slice) => {
        const text = parts.join(sep);
        assert.deepEqual(await splitInTurns(text, sep, slice), text.split(sep));
      },
    ),
  );
});

Deno.test("splitInTurns lets timers run between slices", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  try {
    const ids = Array.from({ length: 50_000 }, (_, i) => `id${i}`);
    assert.deepEqual(await splitInTurns(ids.join("\u0000"), "\u0000", 1000), ids);
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticks > 0);
});
