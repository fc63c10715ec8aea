/** semantic_types on columns whose right answer is known; each expectation is worked out in its comment. */
import assert from "node:assert/strict";
import { columnType, SemanticTypesParams } from "../../../core/annotate/semantic_types.ts";

const defaults = SemanticTypesParams.parse({});
const typeOf = (name: string, values: unknown[], params = defaults) => columnType({ name, values }, params);

Deno.test("semantic_types: numbers become integer, float, boolean, identifier, latitude, longitude", () => {
  // distinct integers under an id-like name
  assert.equal(typeOf("customer_id", [3, 1, 2]).type, "identifier");
  // the same integers under a plain name, and repeated values
  assert.equal(typeOf("visits", [3, 1, 2, 3]).type, "integer");
  // one non-integer makes it float; numeric strings count as numbers (the import's reading)
  assert.equal(typeOf("price", [1, 2.5, "3.25"]).type, "float");
  // only 0 and 1
  const flag = typeOf("churn", [0, 1, 1, 0, null]);
  assert.deepEqual([flag.type, flag.confidence, flag.evidence.missing], ["boolean", 1, 1]);
  // in range under a latitude / longitude name; out of range falls back to float
  assert.equal(typeOf("lat", [45.1, -33.9]).type, "latitude");
  assert.equal(typeOf("lng", [7.6, 151.2]).type, "longitude");
  assert.equal(typeOf("latitude", [45.1, 95.5]).type, "float");
  // "007" keeps its leading zero at import, so it is not a number: three distinct codes with digits
  assert.equal(typeOf("agent", ["007", "008", "009"]).type, "identifier");
});

Deno.test("semantic_types: dates, e-mails, URLs and UUIDs; confidence is the share that fits", () => {
  // 9 ISO dates and one impossible one (2023 is not a leap year): 9/10 = 0.9 ≥ min_share 0.9
  const days = Array.from({ length: 9 }, (_, i) => `2024-03-0${i + 1}`);
  const joined = typeOf("joined", [...days, "2023-02-29"]);
  assert.deepEqual([joined.type, joined.confidence, joined.evidence.matched], ["datetime", 0.9, 9]);
  assert.equal(joined.evidence.format, "date");
  assert.equal(typeOf("t", ["2024-03-01T10:00:00Z", "2024-03-01 23:59"]).evidence.format, "date-time");
  assert.equal(typeOf("d", ["31/12/2024", "01.02.2024"]).evidence.format, "day/month/year");
  assert.equal(typeOf("mail", ["ana@example.org", "bo@mail.example.com"]).type, "email");
  assert.equal(typeOf("home", ["https://example.org/a?b=1", "www.example.com"]).type, "url");
  assert.equal(
    typeOf("ref", ["123e4567-e89b-12d3-a456-426614174000", "00000000-0000-4000-8000-000000000000"]).type,
    "identifier",
  );
});

Deno.test("semantic_types: categorical, text, identifier-like codes, booleans, empty", () => {
  // red 4, green 3, blue 2, violet 1: 4 distinct ≤ 20 and 4·2 ≤ 10; values that repeat: 4+3+2 = 9 of 10
  const colours = ["red", "green", "red", "blue", "green", "red", "blue", "red", "green", "violet"];
  const colour = typeOf("colour", colours);
  assert.deepEqual([colour.type, colour.confidence, colour.evidence.distinct], ["categorical", 0.9, 4]);
  assert.deepEqual(colour.evidence.examples, ["red", "green", "blue"]);
  // all distinct, with spaces: free text
  const notes = typeOf("notes", ["late delivery", "ok", "call back tomorrow"]);
  assert.deepEqual([notes.type, notes.confidence], ["text", 1]);
  // all distinct single words holding a digit
  assert.equal(typeOf("sku", ["A1", "B22", "C-3"]).type, "identifier");
  assert.equal(typeOf("member", [true, false, "yes", "No"]).type, "boolean");
  const empty = typeOf("nothing", [null, "", "  "]);
  assert.deepEqual([empty.type, empty.confidence, empty.evidence.missing], ["empty", 1, 3]);
  assert.equal(typeOf("where", [{ type: "Point", coordinates: [7.6, 45.1] }]).type, "geometry");
});

Deno.test("semantic_types: min_share decides a mixed column", () => {
  // 8 numbers and 2 words: 8/10 = 0.8 < 0.9, and the words hold no digit, so text with 2/10 strings
  const values = [1, 2, 3, 4, 5, 6, 7, 8, "n/a", "unknown"];
  const strict = typeOf("score", values);
  assert.deepEqual([strict.type, strict.confidence], ["text", 0.2]);
  // at min_share 0.8 the numbers win: integer with confidence 8/10
  const lenient = typeOf("score", values, SemanticTypesParams.parse({ min_share: 0.8 }));
  assert.deepEqual([lenient.type, lenient.confidence, lenient.evidence.matched], ["integer", 0.8, 8]);
});
