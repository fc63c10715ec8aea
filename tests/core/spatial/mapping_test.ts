import assert from "node:assert/strict";
import {
  defaultMapping,
  explicitKeys,
  resolveMapping,
  suggestMapping,
} from "../../../core/spatial/mapping.ts";
import { profileFields } from "../../../core/ingest/field_profile.ts";

/** One document holding a value in each of these fields: the profile of a collection that has them. */
const having = (...fields: string[]) => profileFields([Object.fromEntries(fields.map((f) => [f, 1]))]);

Deno.test("mapping: suggestions find common synonyms, the first spelling met wins", () => {
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
  const columns = having("latitude", "longitude", "lon", "y_pred", "label", "note");
  assert.deepEqual(defaultMapping(columns), {
    lat: "latitude", // no 'lat': the synonym
    lon: "lon", // 'lon' exists: the spec's default wins over 'longitude'
    y_true: "label",
    y_pred: "y_pred",
    region_ids: null,
    y_pred_prob: null,
  });
  // the audit's mapping: explicit keys as given, omitted ones as above, absent ones their own name
  assert.deepEqual(resolveMapping({ y_true: "note" }, columns), {
    lat: "latitude",
    lon: "lon",
    y_true: "note",
    y_pred: "y_pred",
    region_ids: "region_ids",
    y_pred_prob: "y_pred_prob",
  });
  // nothing known about the documents: the spec's defaults, the key names
  assert.deepEqual(resolveMapping({ y_pred: "pred" }, []), {
    lat: "lat",
    lon: "lon",
    y_true: "y_true",
    y_pred: "pred",
    region_ids: "region_ids",
    y_pred_prob: "y_pred_prob",
  });
  assert.deepEqual(explicitKeys({ lat: "a", y_pred: "b" }), ["lat", "y_pred"]);
  assert.deepEqual(explicitKeys(undefined), []);
});

Deno.test("mapping: a field counts as present only where some document holds a value", () => {
  // 'lat' and 'label' are only ever null or absent: the synonyms holding values win
  const columns = profileFields([
    { _id: "1", lat: null, latitude: 1, label: null },
    { _id: "2", lat: undefined, target: 0 },
  ]);
  const d = defaultMapping(columns);
  assert.equal(d.lat, "latitude");
  assert.equal(d.y_true, "target");
});
