/** concept_mapping scores worked out by hand: Dice over bigrams, word Jaccard, type fit, description words. */
import assert from "node:assert/strict";
import {
  conceptMapping,
  ConceptMappingParams,
  scoreProperty,
} from "../../../core/annotate/concept_mapping.ts";
import {
  diceSimilarity,
  nameTokens,
  normalizedName,
  wordSimilarity,
} from "../../../core/annotate/name_similarity.ts";
import type { DataModel } from "../../../core/annotate/data_model.ts";
import { toTable } from "../../../core/annotate/table.ts";

const weather: DataModel = {
  id: "Tiny",
  name: "Tiny",
  description: "A test model",
  vocabulary: "test",
  properties: [
    { name: "temperature", type: "number", description: "Temperature of the air" },
    { name: "dateObserved", type: "string", format: "date-time", description: "Date of the observation" },
    { name: "stationName", type: "string", description: "Name of the station" },
  ],
};

Deno.test("names: words, abbreviations and similarities", () => {
  assert.deepEqual(nameTokens("dateObserved"), ["date", "observed"]);
  assert.deepEqual(nameTokens("Temp_C"), ["temp", "c"]);
  assert.deepEqual(nameTokens("uVIndexMax"), ["u", "v", "index", "max"]);
  assert.equal(normalizedName("Temp_C"), "temperaturec");
  // date: da at te; dateobserved: da at te eo ob bs se er rv ve ed → 2·3 / (3 + 11)
  assert.equal(diceSimilarity("date", "dateobserved"), 6 / 14);
  // {station, id} and {id}: 1 shared of 2
  assert.equal(wordSimilarity("station_id", "id"), 0.5);
});

Deno.test("concept_mapping: one property's score is 0.6·name + 0.3·type + 0.1·description", () => {
  // station ⊂ stationname: all 6 bigrams shared → 12/16 = 0.75 (word Jaccard only 0.5); a categorical
  // column fits a string property (1); "station" is a word of "Name of the station" (1)
  const c = scoreProperty("station", "categorical", weather.properties[2]);
  assert.deepEqual(
    [c.name_score, c.type_score, c.description_score, c.score],
    [0.75, 1, 1, 0.85],
  );
});

Deno.test("concept_mapping: ranks candidates per column and proposes a one-to-one mapping", () => {
  const rows = [
    { temp: 3.5, date: "2024-01-01", station: "North", notes: "windy day" },
    { temp: 4.25, date: "2024-01-02", station: "South", notes: "clear" },
    { temp: 1.5, date: "2024-01-03", station: "North", notes: "snow in the morning" },
    { temp: 2.0, date: "2024-01-04", station: "South", notes: "fog" },
  ];
  const out = conceptMapping(toTable(rows), ConceptMappingParams.parse({ data_model_id: "Tiny" }), weather);
  const best = Object.fromEntries(
    out.columns.map((c) => [c.column, c.candidates.map((x) => [x.property, x.score])]),
  );
  // temp → temperature: same name, float fits number, "temperature" is in the description: 1.
  //   dateObserved: Dice(temperature, dateobserved) = 2·3/21 ≈ 0.29, type 0 → 0.17 < 0.45: left out
  // date → dateObserved: max(Dice 6/14, Jaccard 1/2) = 0.5; datetime fits date-time; "date" described:
  //   0.3 + 0.3 + 0.1 = 0.7. stationName: Dice 2/13, half a type fit → 0.24: left out
  // station → stationName: 0.85 (above); notes fits no name: type alone gives 0.3 < 0.45
  assert.deepEqual(best, {
    temp: [["temperature", 1]],
    date: [["dateObserved", 0.7]],
    station: [["stationName", 0.85]],
    notes: [],
  });
  assert.deepEqual(out.columns.map((c) => c.semantic_type), ["float", "datetime", "categorical", "text"]);
  assert.deepEqual(out.mapping, [
    { column: "temp", property: "temperature", score: 1 },
    { column: "station", property: "stationName", score: 0.85 },
    { column: "date", property: "dateObserved", score: 0.7 },
  ]);
  assert.deepEqual(out.unmapped, ["notes"]);
});

Deno.test("concept_mapping: latitude and longitude columns both map to a GeoJSON location", () => {
  const model: DataModel = {
    ...weather,
    properties: [
      { name: "location", type: "object", format: "geojson", description: "Geojson reference to the item" },
      { name: "altitude", type: "number", description: "Height above sea level" },
    ],
  };
  const rows = [{ lat: 45.1, lon: 7.6 }, { lat: 45.2, lon: 7.7 }];
  const out = conceptMapping(toTable(rows), ConceptMappingParams.parse({ data_model_id: "Tiny" }), model);
  // lat → latitude vs location: bigrams shared "at", "ti": 4/14; fits GeoJSON (1): 0.6·2/7 + 0.3 = 0.4714
  //   vs altitude: 10/14 by name but a latitude fits no number property not named so: 0.4286 < 0.45
  // lon → longitude vs location: shared "lo", "on": 4/15; 0.16 + 0.3 = 0.46
  assert.deepEqual(out.mapping, [
    { column: "lat", property: "location", score: 0.4714 },
    { column: "lon", property: "location", score: 0.46 },
  ]);
});
