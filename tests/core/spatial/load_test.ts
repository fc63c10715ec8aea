import assert from "node:assert/strict";
import { IndividualsBuilder, scopeOf } from "../../../core/spatial/load.ts";
import { suggestMapping, withDefaults } from "../../../core/spatial/mapping.ts";
import { InvalidInputError } from "../../../core/errors.ts";

const load = (docs: Record<string, unknown>[], mapping = {}, needs = { yTrue: false, prob: false }) => {
  const b = new IndividualsBuilder(withDefaults(mapping));
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
  assert.deepEqual(ind.regionIds, [[2, 0], [1]]);
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

Deno.test("mapping: defaults are the key names; suggestions find common synonyms", () => {
  assert.deepEqual(withDefaults({ y_pred: "pred" }), {
    lat: "lat",
    lon: "lon",
    y_true: "y_true",
    y_pred: "pred",
    region_ids: "region_ids",
    y_pred_prob: "y_pred_prob",
  });
  assert.deepEqual(suggestMapping(["Latitude", "lng", "label", "prediction", "score", "other"]), {
    lat: "Latitude",
    lon: "lng",
    y_true: "label",
    y_pred: "prediction",
    region_ids: null,
    y_pred_prob: "score",
  });
});
