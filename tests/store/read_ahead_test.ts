import assert from "node:assert/strict";
import { readAhead } from "../../store/read_ahead.ts";

/** A source of 0..n-1 that records how far it was pulled and whether it was closed. */
function counted(n: number, failAt = -1) {
  const seen = { pulled: 0, closed: false };
  async function* source() {
    try {
      for (let i = 0; i < n; i++) {
        await Promise.resolve();
        if (i === failAt) throw new Error(`source failed at ${i}`);
        seen.pulled = i + 1;
        yield i;
      }
    } finally {
      seen.closed = true;
    }
  }
  return { source: source(), seen };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

Deno.test("readAhead: the source's items in order, read at most `depth` ahead of the reader", async () => {
  const { source, seen } = counted(50);
  const out: number[] = [];
  for await (const x of readAhead(source, 4)) {
    await tick(); // the reader is slow: the source runs ahead, but no further than the depth
    assert.ok(seen.pulled - out.length <= 5, `pulled ${seen.pulled} with ${out.length} read`);
    out.push(x);
  }
  assert.deepEqual(out, Array.from({ length: 50 }, (_, i) => i));
  assert.equal(seen.closed, true);
});

Deno.test("readAhead: the source's error reaches the reader after the items before it", async () => {
  const { source } = counted(10, 6);
  const out: number[] = [];
  await assert.rejects(async () => {
    for await (const x of readAhead(source, 3)) out.push(x);
  }, /source failed at 6/);
  assert.deepEqual(out, [0, 1, 2, 3, 4, 5]);
});

Deno.test("readAhead: a reader leaving early closes the source and leaves nothing pulling", async () => {
  const { source, seen } = counted(1000);
  for await (const x of readAhead(source, 8)) if (x === 2) break;
  assert.equal(seen.closed, true);
  const pulled = seen.pulled;
  assert.ok(pulled <= 2 + 1 + 8, `pulled ${pulled}`);
  await tick();
  assert.equal(seen.pulled, pulled);
});

Deno.test("readAhead: an empty source ends the read", async () => {
  const { source } = counted(0);
  for await (const _ of readAhead(source, 2)) assert.fail("no item expected");
});
