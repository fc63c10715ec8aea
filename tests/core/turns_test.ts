import assert from "node:assert/strict";
import fc from "fast-check";
import { splitNulInTurns } from "../../core/turns.ts";

const utf8 = (text: string) => new TextEncoder().encode(text);

Deno.test("splitNulInTurns gives what decoding and splitting at NUL gives, whatever the chunk", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.string({ unit: fc.constantFrom("a", "b", "é", "\u{1F600}") }), { minLength: 1 }),
      fc.integer({ min: 1, max: 9 }),
      async (parts, chunk) => {
        const text = parts.join("\u0000");
        assert.deepEqual(await splitNulInTurns(utf8(text), chunk), text.split("\u0000"));
      },
    ),
    { numRuns: 500 },
  );
});

Deno.test("splitNulInTurns lets timers run between chunks", async () => {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  try {
    const ids = Array.from({ length: 50_000 }, (_, i) => `id${i}`);
    assert.deepEqual(await splitNulInTurns(utf8(ids.join("\u0000")), 4096), ids);
  } finally {
    clearInterval(timer);
  }
  assert.ok(ticks > 0);
});
