import assert from "node:assert/strict";
import fc from "fast-check";
import { serialize } from "node:v8";
import { columnPages, PAGE_BYTES, pageBytes, pageDocuments, valuesOf } from "../../store/column_pages.ts";

/** JSON values as a pack holds them: finite numbers but -0, strings, booleans, null, lists, objects. */
const json = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    fc.integer({ min: -3, max: 70_000 }),
    fc.string(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.nat(70_000), { minLength: 1, maxLength: 4 }),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie("value"), { maxKeys: 3 }),
  ),
})).value;

Deno.test("column pages: every document comes back as it went in, its fields in their order (property)", () => {
  const key = fc.constantFrom("a", "b", "r", "1", "__proto__", "constructor", "é");
  const doc = fc.tuple(fc.dictionary(key, json, { maxKeys: 5 }), fc.nat(5)).map(([d, at]) => {
    // _id anywhere among the fields, as documents store it
    const entries = Object.entries(d);
    entries.splice(Math.min(at, entries.length), 0, ["_id", `id${at}`]);
    return JSON.parse(JSON.stringify(Object.fromEntries(entries))) as Record<string, unknown>;
  });
  fc.assert(
    fc.property(fc.array(doc, { minLength: 1, maxLength: 40 }), (docs) => {
      const back = columnPages(docs).flatMap(pageDocuments);
      assert.equal(JSON.stringify(back), JSON.stringify(docs));
      assert.deepEqual(back, docs);
    }),
    { numRuns: 1000 },
  );
});

Deno.test("column pages: a field of numbers keeps null apart from missing, a __proto__ field stays a field", () => {
  const docs = [
    JSON.parse('{"_id":"a","x":1,"__proto__":{"y":2}}'),
    { _id: "b", x: null },
    { x: 3.5, _id: "c" },
    { _id: "d" },
  ];
  const [page] = columnPages(docs);
  assert.equal(page.fields.find(([n]) => n === "x")![1].kind, "number");
  const back = pageDocuments(page);
  assert.equal(JSON.stringify(back), JSON.stringify(docs));
  assert.equal(Object.getPrototypeOf(back[0]), Object.prototype);
  assert.ok(Object.hasOwn(back[0], "__proto__"));
});

Deno.test("column pages: lists of ids are 16-bit up to 65,535, 32-bit past it, JSON when one is not ids", () => {
  const kinds = (lists: unknown[]) => {
    const [page] = columnPages(lists.map((l, i) => ({ _id: `r${i}`, ids: l })));
    const col = page.fields[0][1];
    assert.deepEqual(pageDocuments(page).map((d) => d.ids), lists);
    return col.kind === "lists" ? col.items.constructor.name : col.kind;
  };
  assert.equal(kinds([[0, 65_535], [7]]), "Uint16Array");
  assert.equal(kinds([[0, 65_536], [7]]), "Int32Array");
  assert.equal(kinds([[1], [2 ** 31 - 1]]), "Int32Array");
  for (const odd of [[], [-1], [1.5], [2 ** 31], ["1"], [null]]) assert.equal(kinds([[1, 2], odd]), "json");
  assert.equal(kinds([[1, 2], null]), "json");
});

Deno.test("column pages: each page fits a KV value (64 KiB serialised), however long the lists", () => {
  const docs = Array.from({ length: 400 }, (_, i) => ({
    _id: `id${i}`,
    r: Array.from({ length: 1 + (i * 37) % 900 }, (_, k) => (i % 3 ? k : 70_000 + k)), // 16- and 32-bit
    s: "é".repeat(i % 50),
    x: i,
  }));
  const pages = columnPages(docs);
  assert.ok(pages.length > 1);
  assert.equal(pages.reduce((sum, p) => sum + p.n, 0), docs.length);
  for (const p of pages) {
    assert.ok(pageBytes(p) <= PAGE_BYTES);
    assert.ok(serialize(p).byteLength <= 65_536, `serialised ${serialize(p).byteLength}`);
    assert.ok(serialize(p).byteLength <= pageBytes(p), "pageBytes bounds the serialised size");
  }
  assert.deepEqual(pages.flatMap((p) => p.ids), docs.map((d) => d._id));
  assert.deepEqual(
    pages.flatMap((p) => valuesOf(p.fields.find(([n]) => n === "s")![1], p.n)),
    docs.map((d) => d.s),
  );
  assert.deepEqual(
    pages.flatMap((p) => valuesOf(p.fields.find(([n]) => n === "r")![1], p.n)),
    docs.map((d) => d.r),
  );
});
