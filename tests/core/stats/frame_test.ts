import assert from "node:assert/strict";
import { FrameBuilder, frameOf } from "../../../core/stats/frame.ts";

Deno.test("frame: first-seen column order, gaps for missing fields and nulls, _id left out", () => {
  const f = frameOf([
    { _id: "1", x: 1, flag: true },
    { _id: "2", flag: false, y: 2.5 },
    { _id: "3", x: null, y: 4 },
  ]);
  assert.equal(f.rows, 3);
  assert.deepEqual(f.columns.map((c) => [c.name, c.kind]), [["x", "numeric"], ["flag", "numeric"], [
    "y",
    "numeric",
  ]]);
  const [x, flag, y] = f.columns;
  assert.ok(x.kind === "numeric" && flag.kind === "numeric" && y.kind === "numeric");
  assert.deepEqual([...x.values], [1, NaN, NaN]);
  assert.deepEqual([...flag.values], [1, 0, NaN]);
  assert.equal(flag.boolean, true);
  assert.equal(x.boolean, false);
  assert.deepEqual([...y.values], [NaN, 2.5, 4]);
});

Deno.test("frame: a string turns a column into text (earlier numbers as their text); objects make it unusable", () => {
  const b = new FrameBuilder();
  // More rows than the first buffer holds, so growing is exercised on both kinds.
  b.add(
    Array.from(
      { length: 1500 },
      (_, i) => ({ code: i % 3, plan: i === 1400 ? "gold" : i % 2, tags: i ? null : [1] }),
    ),
  );
  b.add([{ code: "x", plan: null, only_nulls: null }]);
  const f = b.finish();
  assert.equal(f.rows, 1501);
  const [code, plan, tags, onlyNulls] = f.columns;
  assert.ok(code.kind === "text" && plan.kind === "text");
  assert.deepEqual(code.levels, ["0", "1", "2", "x"]);
  assert.deepEqual([...code.codes.slice(0, 4)], [0, 1, 2, 0]);
  assert.equal(code.codes[1500], 3);
  assert.equal(plan.codes[1400], plan.levels.indexOf("gold"));
  assert.equal(plan.codes[1500], -1);
  assert.equal(tags.kind, "other");
  assert.equal(onlyNulls.kind, "other");
});
