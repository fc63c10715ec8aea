import assert from "node:assert/strict";
import {
  defaultMapping,
  explicitKeys,
  fieldsWithValues,
  resolveMapping,
  suggestMapping,
  withDefaults,
} from "../../../core/spatial/mapping.ts";

Deno.test("mapping: the spec's defaults are the key names; suggestions find common synonyms", () => {
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
  // two spellings of one name: the first met wins, whatever the order of the rest
  assert.equal(suggestMapping(["Latitude", "LATITUDE"]).lat, "Latitude");
});

Deno.test("mapping: an omitted key reads its own name when present, else the synonym, else nothing", () => {
  const fields = ["latitude", "longitude", "lon", "y_pred", "label", "note"];
  assert.deepEqual(defaultMapping(fields), {
    lat: "latitude", // no 'lat': the synonym
    lon: "lon", // 'lon' exists: the spec's default wins over 'longitude'
    y_true: "label",
    y_pred: "y_pred",
    region_ids: null,
    y_pred_prob: null,
  });
  // the audit's mapping: explicit keys as given, omitted ones as above, absent ones their own name
  assert.deepEqual(resolveMapping({ y_true: "note" }, fields), {
    lat: "latitude",
    lon: "lon",
    y_true: "note",
    y_pred: "y_pred",
    region_ids: "region_ids",
    y_pred_prob: "y_pred_prob",
  });
  assert.deepEqual(resolveMapping(undefined, []), withDefaults(undefined));
  assert.deepEqual(explicitKeys({ lat: "a", y_pred: "b" }), ["lat", "y_pred"]);
  assert.deepEqual(explicitKeys(undefined), []);
});

Deno.test("mapping: fields count as present only where some document holds a value", () => {
  assert.deepEqual(
    fieldsWithValues([{ _id: "1", a: 1, b: null }, { _id: "2", c: 0, b: undefined }, { a: false, d: "" }]),
    ["a", "c", "d"],
  );
});
