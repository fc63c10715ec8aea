import assert from "node:assert/strict";
import { balancedCuts, csrLayout } from "../../../core/spatial/csr.ts";
import { localAlloc } from "../../../core/memory.ts";

Deno.test("balancedCuts: runs of about the same weight, in order, empty ones where one item outweighs", () => {
  assert.deepEqual(balancedCuts([1, 1, 6, 1, 1], 1), [0, 5]);
  assert.deepEqual(balancedCuts([1, 1, 6, 1, 1], 2), [0, 3, 5]);
  assert.deepEqual(balancedCuts([1, 1, 6, 1, 1], 3), [0, 3, 4, 5]);
  assert.deepEqual(balancedCuts([2, 2, 2, 2], 2), [0, 2, 4]);
  assert.deepEqual(balancedCuts([], 2), [0, 0, 0]);
});

Deno.test("csrLayout: each list holds part 0's items, then part 1's, from every part's counts", () => {
  // two parts, three lists: part 0 writes 2, 0, 1 items; part 1 writes 1, 2, 0
  const { all, start, next } = csrLayout([Int32Array.of(2, 0, 1), Int32Array.of(1, 2, 0)], localAlloc);
  assert.deepEqual(Array.from(start), [0, 3, 5, 6]);
  assert.deepEqual(next.map((n) => Array.from(n)), [[0, 3, 5], [2, 3, 6]]);
  assert.equal(all.length, 6);
});
