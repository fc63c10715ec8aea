import assert from "node:assert/strict";
import { IndividualsBuilder, scopeOf } from "../../../core/spatial/load.ts";
import { explicitKeys, type Mapping, resolveMapping } from "../../../core/spatial/mapping.ts";
import { InvalidInputError } from "../../../core/errors.ts";

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

const rejects = (fn: () => unknown, pattern: RegExp, loc: (string | number)[]) =>
  assert.throws(fn, (e: Error) => {
    assert.ok(e instanceof InvalidInputError, String(e));
    assert.match(e.message, pattern);
    assert.deepEqual(e.loc, loc);
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
    "body",
    "mapping",
    "y_pred",
  ]);
  rejects(
    () => load([{ y_pred: 1 }, {}, {}], {}, { yTrue: false, prob: false }),
    /missing in 2 of 3 documents/,
    [
      "body",
      "mapping",
      "y_pred",
    ],
  );
  rejects(
    () => load([{ y_pred: 1, y_true: 1 }, { y_pred: 1 }], {}, { yTrue: true, prob: false }),
    /'y_true' \(mapped to y_true\) is missing in 1 of 2 documents; equal_opp=true/,
    ["body", "mapping", "y_true"],
  );
  rejects(() => load([{ y_pred: 1, lat: 91, lon: 0 }]), /\[-90, 90\]/, ["body", "mapping", "lat"]);
  rejects(() => load([{ y_pred: 1, region_ids: [] }]), /non-empty list/, ["body", "mapping", "region_ids"]);
  rejects(() => load([{ y_pred: 1, region_ids: [-1] }]), /non-negative/, ["body", "mapping", "region_ids"]);
  rejects(() => load([{ y_pred: 1, y_pred_prob: 1.5 }]), /probability/, ["body", "mapping", "y_pred_prob"]);
  rejects(
    () => load([{ y_pred: 1, lat: 1, lon: 1 }, { y_pred: 0, lat: 2 }]),
    /'lon' \(mapped to lon\) is missing in 1 of 2/,
    ["body", "mapping", "lon"],
  );
  rejects(() => load([]), /no documents/, ["path", "data_collection_name"]);
});

Deno.test("load: a field the request maps is never dropped in silence when documents lack it", () => {
  const docs = Array.from({ length: 40 }, (_, i) => ({ y_pred: i % 2, zone: [i % 4], lat: 1, lon: 2 }));
  // a typo in region_ids: without the rule the coordinates would have formed k-means regions instead
  rejects(
    () => load(docs, { region_ids: "zone_typo" }),
    /^field 'zone_typo' \(mapped to region_ids\) is missing in 40 of 40 documents; a field the request maps/,
    ["body", "mapping", "region_ids"],
  );
  rejects(
    () => load(docs, { lat: "typo" }),
    /^field 'typo' \(mapped to lat\) is missing in 40 of 40 documents/,
    ["body", "mapping", "lat"],
  );
  // missing from some documents only: 10 of the 40 lack `score`
  const someProb = docs.map((d, i) => (i < 10 ? d : { ...d, score: 0.5 }));
  rejects(
    () => load(someProb, { y_pred_prob: "score" }),
    /^field 'score' \(mapped to y_pred_prob\) is missing in 10 of 40 documents/,
    ["body", "mapping", "y_pred_prob"],
  );
  // a null counts as missing, as for every slot
  rejects(
    () => load([{ y_pred: 1, t: 1 }, { y_pred: 0, t: null }], { y_true: "t" }),
    /'t' \(mapped to y_true\) is missing in 1 of 2 documents/,
    ["body", "mapping", "y_true"],
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
