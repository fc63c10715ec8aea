import assert from "node:assert/strict";
import { IndividualsBuilder } from "../../../core/spatial/load.ts";
import { scopeOf } from "../../../core/spatial/loaded_columns.ts";
import { columnPages } from "../../../store/column_pages.ts";
import { pageColumns } from "../../../workers/tasks/dataset.ts";
import fc from "fast-check";
import { explicitKeys, type Mapping, resolveMapping } from "../../../core/spatial/mapping.ts";
import { InvalidParamError } from "../../../core/errors.ts";

/** Loads docs as the audit would for a request whose mapping is `mapping` (its keys are explicit). */
const load = (
  docs: Record<string, unknown>[],
  mapping: Partial<Mapping> = {},
  needs = { yTrue: false, prob: false },
) => {
  const b = new IndividualsBuilder(resolveMapping(mapping, []), explicitKeys(mapping));
  b.add(docs.map((d, i) => ({ _id: `d${i}`, ...d })));
  return b.finish(needs);
};

const rejects = (fn: () => unknown, pattern: RegExp, param: (string | number)[]) =>
  assert.throws(fn, (e: Error) => {
    assert.ok(e instanceof InvalidParamError, String(e));
    assert.match(e.message, pattern);
    assert.deepEqual(e.param, param);
    return true;
  });

Deno.test("load: mapped fields become typed columns in collection order", () => {
  const ind = load([
    { p: 1, t: true, la: 10.5, lo: -3, r: [2, 0] },
    { p: 0, t: false, la: -10, lo: 179.9, r: 1 },
  ], { y_pred: "p", y_true: "t", lat: "la", lon: "lo", region_ids: "r" });
  assert.equal(ind.n, 2);
  assert.deepEqual([...ind.yPred], [1, 0]);
  assert.deepEqual([...ind.yTrue!], [1, 0]);
  assert.deepEqual([...ind.lat!], [10.5, -10]);
  assert.deepEqual([...ind.lon!], [-3, 179.9]);
  assert.deepEqual(ind.regionIds, { start: Int32Array.of(0, 2, 3), ids: Int32Array.of(2, 0, 1) });
  // an id past 32 bits keeps every id as a double
  const wide = load([{ y_pred: 1, r: [2, 0] }, { y_pred: 0, r: [4e9] }], { region_ids: "r" });
  assert.deepEqual(wide.regionIds, { start: Int32Array.of(0, 2, 3), ids: Float64Array.of(2, 0, 4e9) });
  assert.equal(ind.prob, null);
  assert.deepEqual(ind.docIds, ["d0", "d1"]);
  assert.deepEqual([...scopeOf(ind, true)], [0]);
  assert.deepEqual([...scopeOf(ind, false)], [0, 1]);
});

Deno.test("load: a reviewer is told what is wrong, where, and how often", () => {
  rejects(() => load([{ y_pred: 2 }]), /must be 0 or 1; document d0 \(position 0\) has 2/, [
    "mapping",
    "y_pred",
  ]);
  rejects(
    () => load([{ y_pred: 1 }, {}, {}], {}, { yTrue: false, prob: false }),
    /missing in 2 of 3 documents/,
    ["mapping", "y_pred"],
  );
  rejects(
    () => load([{ y_pred: 1, y_true: 1 }, { y_pred: 1 }], {}, { yTrue: true, prob: false }),
    /'y_true' \(mapped to y_true\) is missing in 1 of 2 documents; equal_opp=true/,
    ["mapping", "y_true"],
  );
  rejects(() => load([{ y_pred: 1, lat: 91, lon: 0 }]), /\[-90, 90\]/, ["mapping", "lat"]);
  rejects(() => load([{ y_pred: 1, region_ids: [] }]), /non-empty list/, ["mapping", "region_ids"]);
  rejects(() => load([{ y_pred: 1, region_ids: [-1] }]), /non-negative/, ["mapping", "region_ids"]);
  rejects(() => load([{ y_pred: 1, y_pred_prob: 1.5 }]), /probability/, ["mapping", "y_pred_prob"]);
  rejects(
    () => load([{ y_pred: 1, lat: 1, lon: 1 }, { y_pred: 0, lat: 2 }]),
    /'lon' \(mapped to lon\) is missing in 1 of 2/,
    ["mapping", "lon"],
  );
  rejects(() => load([]), /no documents/, ["data_collection_name"]);
});

Deno.test("load: a field the request maps is never dropped in silence when documents lack it", () => {
  const docs = Array.from({ length: 40 }, (_, i) => ({ y_pred: i % 2, zone: [i % 4], lat: 1, lon: 2 }));
  // a typo in region_ids: without the rule the coordinates would have formed k-means regions instead
  rejects(
    () => load(docs, { region_ids: "zone_typo" }),
    /^field 'zone_typo' \(mapped to region_ids\) is missing in 40 of 40 documents; a field the request maps/,
    ["mapping", "region_ids"],
  );
  rejects(
    () => load(docs, { lat: "typo" }),
    /^field 'typo' \(mapped to lat\) is missing in 40 of 40 documents/,
    ["mapping", "lat"],
  );
  // missing from some documents only: 10 of the 40 lack `score`
  const someProb = docs.map((d, i) => (i < 10 ? d : { ...d, score: 0.5 }));
  rejects(
    () => load(someProb, { y_pred_prob: "score" }),
    /^field 'score' \(mapped to y_pred_prob\) is missing in 10 of 40 documents/,
    ["mapping", "y_pred_prob"],
  );
  // a null counts as missing, as for every slot
  rejects(
    () => load([{ y_pred: 1, t: 1 }, { y_pred: 0, t: null }], { y_true: "t" }),
    /'t' \(mapped to y_true\) is missing in 1 of 2 documents/,
    ["mapping", "y_true"],
  );
  // the same key left to its default keeps the old behaviour: absent everywhere, the slot is absent
  const byDefault = load(docs);
  assert.equal(byDefault.regionIds, null);
  assert.equal(byDefault.prob, null);
  assert.deepEqual([...byDefault.lat!].slice(0, 2), [1, 1]);
  // mapped and present everywhere: fine
  const zones = load(docs, { region_ids: "zone" }).regionIds!;
  assert.deepEqual([...zones.start.slice(0, 6)], [0, 1, 2, 3, 4, 5]);
  assert.deepEqual([...zones.ids.slice(0, 5)], [0, 1, 2, 3, 0]);
});

/** The same documents through `add` and through column pages: equal columns, or the same 422. */
function bothWays(docs: Record<string, unknown>[], mapping: Partial<Mapping>, batch: number) {
  const m = resolveMapping(mapping, []), withIds = docs.map((d, i) => ({ _id: `d${i}`, ...d }));
  const outcome = (fill: (b: IndividualsBuilder) => void) => {
    const b = new IndividualsBuilder(m, explicitKeys(mapping));
    try {
      fill(b);
      return b.columns();
    } catch (e) {
      return (e as Error).message;
    }
  };
  const byDocs = outcome((b) => {
    for (let i = 0; i < withIds.length; i += batch) b.add(withIds.slice(i, i + batch));
  });
  const byPages = outcome((b) => {
    for (let i = 0; i < withIds.length; i += batch) {
      for (const page of columnPages(withIds.slice(i, i + batch))) b.addColumns(pageColumns(page));
    }
  });
  return { byDocs, byPages };
}

Deno.test("column pages: the builder gives the same columns and the same 422s as from documents (property)", () => {
  const value = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(0, 1) },
    { weight: 2, arbitrary: fc.integer({ min: -2, max: 3 }) }, // 2 and -1: not 0 or 1, yet numbers
    fc.double({ min: -200, max: 200, noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    fc.constant(null),
    fc.boolean(),
    fc.constantFrom("1", "x"),
    fc.array(fc.oneof(fc.nat(40), fc.constant(70_000)), { maxLength: 3 }), // 16- and 32-bit lists
    fc.array(fc.oneof(fc.nat(9), fc.constant(2 ** 33), fc.constant(-1), fc.constant(1.5)), {
      minLength: 1,
      maxLength: 3,
    }),
  );
  const doc = fc.dictionary(fc.constantFrom("a", "b", "c", "r", "constructor"), value, { maxKeys: 5 });
  const keys = fc.constantFrom("a", "b", "c", "r", "_id", "constructor");
  const mapping = fc.record({
    y_pred: keys,
    y_true: keys,
    lat: keys,
    lon: keys,
    y_pred_prob: keys,
    region_ids: keys,
  }, {
    requiredKeys: [],
  });
  fc.assert(
    fc.property(
      fc.array(doc, { minLength: 1, maxLength: 25 }),
      mapping,
      fc.integer({ min: 1, max: 9 }),
      (docs, m, batch) => {
        const { byDocs, byPages } = bothWays(docs, m, batch);
        assert.deepEqual(byPages, byDocs);
      },
    ),
    { numRuns: 1000 },
  );
});

Deno.test("column pages: pages of number columns, copied in bulk when every value is valid (property)", () => {
  const num = (arb: fc.Arbitrary<number>) => fc.option(arb, { nil: undefined, freq: 8 });
  const doc = fc.record({
    p: num(fc.constantFrom(0, 1, 1, 0, 2, -1)),
    t: fc.option(fc.constantFrom(0, 1), { nil: null, freq: 6 }),
    la: num(fc.double({ min: -100, max: 100, noNaN: true }).filter((x) => !Object.is(x, -0))),
    lo: num(fc.double({ min: -190, max: 190, noNaN: true }).filter((x) => !Object.is(x, -0))),
    q: num(fc.constantFrom(0, 0.25, 1, 1.5)),
    r: fc.array(fc.oneof(fc.nat(30), fc.constant(70_000)), { minLength: 1, maxLength: 3 }),
  }).map((d) => JSON.parse(JSON.stringify(d)) as Record<string, unknown>); // undefined: the field is missing
  const mapping = { y_pred: "p", y_true: "t", lat: "la", lon: "lo", y_pred_prob: "q", region_ids: "r" };
  fc.assert(
    fc.property(
      fc.array(doc, { minLength: 1, maxLength: 30 }),
      fc.integer({ min: 1, max: 12 }),
      (docs, batch) => {
        const { byDocs, byPages } = bothWays(docs, mapping, batch);
        assert.deepEqual(byPages, byDocs);
      },
    ),
    { numRuns: 1000 },
  );
});

Deno.test("column pages: typical rows read the same through pages, 32-bit ids copied whole", () => {
  const docs = Array.from({ length: 500 }, (_, i) => ({
    p: i % 2,
    t: i % 3 === 0 ? null : 1,
    la: 10 + i / 100,
    lo: -20 - i / 100,
    q: (i % 10) / 10,
    r: Array.from({ length: 1 + (i % 150) }, (_, k) => (i + k) % 3000),
  }));
  const mapping = { y_pred: "p", y_true: "t", lat: "la", lon: "lo", y_pred_prob: "q", region_ids: "r" };
  const { byDocs, byPages } = bothWays(docs, mapping, 250);
  assert.equal(typeof byDocs, "object");
  assert.deepEqual(byPages, byDocs);
});
