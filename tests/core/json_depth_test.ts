import assert from "node:assert/strict";
import {
  describePath,
  MAX_JSON_DEPTH,
  tooDeepAt,
  tooDeepField,
  tooDeepMessage,
} from "../../core/json_depth.ts";

/** `levels` arrays around 1, built without recursion. */
function arrays(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

Deno.test("json depth: scalars nest 0 levels, {} and [] one, and the limit is inclusive", () => {
  for (const v of [null, 1, "x", true, undefined]) assert.equal(tooDeepAt(v, 0), null);
  assert.deepEqual(tooDeepAt({}, 0), []);
  assert.equal(tooDeepAt({}, 1), null);
  assert.equal(tooDeepAt([1, "a", null], 1), null);
  assert.equal(tooDeepAt(arrays(64)), null);
  assert.deepEqual(tooDeepAt(arrays(65)), Array(64).fill(0)); // the 65th array sits 64 steps down
  assert.equal(MAX_JSON_DEPTH, 64);
});

Deno.test("json depth: the path names the first too-deep branch, keys and indexes", () => {
  const v = { a: [1, { b: 2 }], c: { d: [[{ e: 1 }]] } };
  // levels: v 1, c 2, d 3, d[0] 4, d[0][0] 5
  assert.equal(tooDeepAt(v, 5), null);
  assert.deepEqual(tooDeepAt(v, 4), ["c", "d", 0, 0]);
  assert.deepEqual(tooDeepAt(v, 2), ["a", 1]); // a[1] is met before c.d
  assert.equal(describePath(["c", "d", 0, 0]), "c.d[0][0]");
  assert.equal(describePath(["a b", 1, "x", "y", "z"]), '["a b"][1].x.y…');
  assert.equal(tooDeepMessage(["c", "d"], 4), "nests objects and arrays more than 4 levels deep (at c.d)");
});

Deno.test("json depth: 200,000 levels are measured without a stack overflow", () => {
  const deep = JSON.parse("[".repeat(200_000) + "]".repeat(200_000));
  assert.equal(tooDeepAt(deep)!.length, 64);
  assert.equal(tooDeepAt(deep, 400_000), null);
});

Deno.test("json depth: a record's fields are measured from below the record", () => {
  assert.equal(tooDeepField({ a: 1, x: arrays(64) }), null);
  assert.deepEqual(tooDeepField({ a: 1, x: arrays(3), y: arrays(65) }), {
    field: "y",
    path: Array(64).fill(0),
  });
  assert.deepEqual(tooDeepField({ x: { k: arrays(2) } }, 2), { field: "x", path: ["k", 0] });
});

Deno.test("json depth: a list of scalars is one level; a list holding a list is walked", () => {
  assert.equal(tooDeepField({ region_ids: [1, 2, 3], s: ["a", null, true] }, 1), null);
  assert.deepEqual(tooDeepField({ ids: [1, 2, [3]] }, 1), { field: "ids", path: [2] });
  assert.deepEqual(tooDeepField({ ids: [1, { k: [] }] }, 2), { field: "ids", path: [1, "k"] });
  assert.deepEqual(tooDeepField({ ids: [1] }, 0), { field: "ids", path: [] });
});
