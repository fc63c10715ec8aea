import assert from "node:assert/strict";
import { checkImportTarget, importTargetProblems } from "../../../core/ingest/import_target.ts";
import { InvalidInputError } from "../../../core/errors.ts";

const loc = { db: ["flag", "db"], collection: ["flag", "collection"] };

Deno.test("import names: good names have no problem, at the length limits too", () => {
  assert.deepEqual(importTargetProblems({ db: "demo_1-x", collection: "people.v2" }, "tessera"), {});
  // 63 characters is MongoDB's database limit; a collection is 1 leading character plus up to 119
  assert.deepEqual(importTargetProblems({ db: "d".repeat(63), collection: "c".repeat(120) }, "tessera"), {});
});

Deno.test("import names: each bad name has its own problem; Tessera's own database is refused", () => {
  assert.deepEqual(importTargetProblems({ db: "d".repeat(64), collection: "c".repeat(121) }, "tessera"), {
    db: `database name '${"d".repeat(64)}' must be 1 to 63 letters, digits, '_' or '-'`,
    collection: `collection name '${"c".repeat(121)}' must start with a letter or digit, then up to 119 ` +
      "letters, digits, '_', '.' or '-'",
  });
  const p = (db: string, collection: string) => importTargetProblems({ db, collection }, "tessera");
  assert.deepEqual(Object.keys(p("", "x")), ["db"]);
  assert.deepEqual(Object.keys(p("a.b", "x")), ["db"]); // a dot is no part of a database name
  assert.deepEqual(Object.keys(p("demo", ".hidden")), ["collection"]);
  assert.deepEqual(Object.keys(p("demo", "a$b")), ["collection"]);
  assert.deepEqual(p("tessera", "x"), { db: "database 'tessera' holds Tessera's own records" });
  assert.deepEqual(importTargetProblems({ db: "tessera", collection: "x" }, "other"), {});
});

Deno.test("import names: checkImportTarget throws the first problem at the caller's loc", () => {
  assert.doesNotThrow(() => checkImportTarget({ db: "demo", collection: "x" }, "tessera", loc));
  const thrown = (db: string, collection: string) => {
    try {
      checkImportTarget({ db, collection }, "tessera", loc);
    } catch (e) {
      assert.ok(e instanceof InvalidInputError);
      return [e.loc, e.message];
    }
    assert.fail("no error");
  };
  assert.deepEqual(thrown("tessera", "$x"), [
    ["flag", "db"],
    "database 'tessera' holds Tessera's own records",
  ]);
  assert.deepEqual(thrown("demo", "$x")[0], ["flag", "collection"]);
});
