import assert from "node:assert/strict";
import { FrameBuilder, frameOf } from "../../../core/stats/frame.ts";
import { columnPages } from "../../../store/column_pages.ts";
import { pageColumns } from "../../../workers/tasks/dataset.ts";
import fc from "fast-check";

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

Deno.test("frame: column pages give the frame their documents give (property)", () => {
  const value = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    fc.integer({ min: -5, max: 5 }),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom("a", "b", "1"),
    fc.array(fc.nat(9), { maxLength: 3 }),
    fc.record({ k: fc.nat(3) }),
  );
  const doc = fc.dictionary(fc.constantFrom("x", "y", "z", "1", "constructor"), value, { maxKeys: 4 });
  fc.assert(
    fc.property(
      fc.array(doc, { maxLength: 30 }),
      fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: -3, max: 3 }),
      (docs, batch, off) => {
        const withIds = docs.map((d, i) => ({ _id: `d${i}`, ...d }));
        const byDocs = new FrameBuilder(), byPages = new FrameBuilder();
        // told a row count (the store's, which a write may have changed since): right, short or long
        const expecting = new FrameBuilder({ expectedRows: Math.max(0, withIds.length + off) });
        for (let i = 0; i < withIds.length; i += batch) {
          byDocs.add(withIds.slice(i, i + batch));
          for (const page of columnPages(withIds.slice(i, i + batch))) {
            byPages.addColumns(pageColumns(page));
            expecting.addColumns(pageColumns(page));
          }
        }
        const frame = byDocs.finish();
        assert.deepEqual(byPages.finish(), frame);
        assert.deepEqual(expecting.finish(), frame);
      },
    ),
    { numRuns: 1000 },
  );
});
