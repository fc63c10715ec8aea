/**
 * Field names from data that Object.prototype also has (`constructor`, `toString`, `__proto__`, ...): read
 * as own fields only, written as own fields, in the helpers and in the core code that takes names from data.
 */
import assert from "node:assert/strict";
import { own, setOwn } from "../../core/data_keys.ts";
import { toTable } from "../../core/annotate/table.ts";
import { expandedTokens, normalizedName } from "../../core/annotate/name_similarity.ts";
import { imputeMean } from "../../core/cleaning/impute_tabular.ts";
import { changes, matches, project } from "../../store/store.ts";

const row = (json: string) => JSON.parse(json) as Record<string, unknown>;

Deno.test("data keys: own reads own fields only; setOwn writes __proto__ as a field", () => {
  const r = row('{"a": 1, "__proto__": 2}');
  assert.equal(own(r, "constructor"), undefined);
  assert.equal(own(r, "toString"), undefined);
  assert.equal(own(r, "__proto__"), 2);
  assert.equal(own(r, "a"), 1);
  const o: Record<string, unknown> = {};
  setOwn(o, "__proto__", 5);
  setOwn(o, "constructor", 6);
  assert.equal(Object.getPrototypeOf(o), Object.prototype); // the prototype is untouched
  assert.deepEqual(Object.keys(o), ["__proto__", "constructor"]);
  assert.equal(JSON.stringify(o), '{"__proto__":5,"constructor":6}');
  setOwn(o, "__proto__", { x: 1 }); // an object too: a value, not a prototype
  assert.equal((o as { x?: number }).x, undefined);
});

Deno.test("data keys: a row without `constructor` has it missing in its table column", () => {
  const rows = [row('{"constructor": 1, "toString": "a"}'), row('{"valueOf": 2}'), row('{"__proto__": 3}')];
  const t = toTable(rows);
  const col = (name: string) => t.columns.find((c) => c.name === name)!.values;
  assert.deepEqual(t.columns.map((c) => c.name), ["constructor", "toString", "valueOf", "__proto__"]);
  assert.deepEqual(col("constructor"), [1, null, null]);
  assert.deepEqual(col("toString"), ["a", null, null]);
  assert.deepEqual(col("valueOf"), [null, 2, null]);
  assert.deepEqual(col("__proto__"), [null, null, 3]);
  structuredClone(t); // what the worker pool does: no function may be in it
});

Deno.test("data keys: a column named `constructor` is the word, not Object's abbreviation entry", () => {
  assert.deepEqual(expandedTokens("constructor"), ["constructor"]);
  assert.deepEqual(expandedTokens("temp_constructor"), ["temperature", "constructor"]);
  assert.equal(normalizedName("hasOwnProperty"), "hasownproperty");
});

Deno.test("data keys: an imputation's unfilled counts keep a `__proto__` column", () => {
  const out = imputeMean([{ name: "__proto__", values: Float64Array.from([NaN, NaN]) }]);
  assert.ok(Object.hasOwn(out.unfilled, "__proto__"));
  assert.deepEqual(JSON.parse(JSON.stringify(out.unfilled)), row('{"__proto__": 2}'));
});

Deno.test("data keys: the store's projection, filter and change test see own fields only", () => {
  const doc = { _id: "x", a: 1, ...row('{"__proto__": 7}') };
  const p = project(doc, ["constructor", "toString", "__proto__", "a"]);
  assert.deepEqual(Object.keys(p), ["_id", "__proto__", "a"]);
  assert.equal(own(p, "__proto__"), 7);
  structuredClone(p);
  assert.equal(matches(doc, { constructor: null }), false);
  assert.equal(matches({ ...doc, ...row('{"constructor": 3}') }, { constructor: 3 }), true);
  // setting `toString` to undefined on a document without it changes nothing
  assert.equal(changes(doc, { toString: undefined }), false);
  assert.equal(changes(doc, { constructor: 1 }), true);
});
