import assert from "node:assert/strict";
import { binEdges, binFeatures, binOf } from "../../../core/learn/binning.ts";

Deno.test("binning: few distinct values get a bin each, cut halfway between neighbours, centred on the value", () => {
  const fb = binEdges(Float64Array.from([3, 1, 2, 2, 1]), 255);
  assert.deepEqual([...fb.edges], [1.5, 2.5]);
  assert.deepEqual([...fb.centres], [1, 2, 3]);
  const e = Float64Array.from([1.5, 2.5]);
  assert.deepEqual([0.5, 1, 1.5, 2, 2.5, 9].map((v) => binOf(e, v)), [0, 0, 0, 1, 1, 2]);
});

Deno.test("binning: many values go into equal-frequency bins; a heavy value keeps a bin of its own", () => {
  // 1000 distinct values into 4 bins: cuts after the 250th, 500th and 750th value.
  const v = Float64Array.from({ length: 1000 }, (_, i) => i);
  const fb = binEdges(v, 4);
  assert.deepEqual([...fb.edges], [249.5, 499.5, 749.5]);
  assert.deepEqual([...fb.centres], [124.5, 374.5, 624.5, 874.5]);
  // 600 zeros and the 400 values 600..999: the zeros (over 1000 / 4 rows) get a bin of their own and the
  // other 400 rows share 3 bins, closed once they pass 400 / 3 rows: after 600..733 and 734..867.
  const heavy = Float64Array.from({ length: 1000 }, (_, i) => (i < 600 ? 0 : i));
  assert.deepEqual([...binEdges(heavy, 4).edges], [300, 733.5, 867.5]);
});

Deno.test("binning: edges come from the training rows only; other rows are binned by them", () => {
  const col = Float64Array.from([1, 2, 3, 100]);
  const b = binFeatures([col], Uint32Array.from([0, 1, 2]), 255);
  assert.deepEqual([...b.edges[0]], [1.5, 2.5]);
  assert.deepEqual([...b.bins], [0, 1, 2, 2]);
  assert.ok(b.bins instanceof Uint8Array);
  assert.equal(b.binCount[0], 3);
  assert.ok(binFeatures([col], Uint32Array.from([0, 1, 2]), 65_535).bins instanceof Uint16Array);
});
