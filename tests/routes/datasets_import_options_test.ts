/**
 * `POST /api/datasets/{database}/{collection}` options of issue 21 on both stores: `mode` (create,
 * replace, append; `replace=` kept as the older spelling), CSV dialects (the delimiter detected or given),
 * the column limit (a 100,000-column CSV refused at once), and one import per name at a time.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../support/stores.ts";
import type { Doc } from "../../store/store.ts";
import { findDataset } from "../../services/datasets/registry.ts";

/** POSTs an upload body; `path` is relative to `/api/datasets/`. */
function upload(t: StoreApp, path: string, body: BodyInit, type = "text/csv") {
  return t.app.request(`/api/datasets/${path}`, { method: "POST", body, headers: { "content-type": type } });
}

/** Every document of a collection, in id order, without ids. */
async function rows(t: StoreApp, collection: string): Promise<Record<string, unknown>[]> {
  const docs: Doc[] = [];
  for await (const b of t.store.stream({ db: t.db, collection })) docs.push(...b);
  return docs.map(({ _id, ...d }) => d);
}

storeTest("import mode: create makes a new dataset and refuses an existing name", async (t) => {
  const made = await upload(t, `${t.db}/people?mode=create`, "name,age\nana,31\n");
  assert.equal(made.status, 200);
  assert.deepEqual([
    (await made.json()).mode,
    (await findDataset(t.store, t.config.TESSERA_DB, "people"))?.rows,
  ], [
    "create",
    1,
  ]);
  const again = await upload(t, `${t.db}/people?mode=create`, "name,age\nbo,7\n");
  assert.equal(again.status, 409);
  assert.match(
    (await again.json()).detail,
    /a dataset named 'people' exists already in database '.*' \(1 rows\): mode create makes new datasets only; use mode replace or append/,
  );
  assert.deepEqual(await rows(t, "people"), [{ name: "ana", age: 31 }]);
  // a collection holding documents that no dataset registers is not new either
  await t.store.insertMany({ db: t.db, collection: "loose" }, [{ v: 1 }]);
  const loose = await upload(t, `${t.db}/loose?mode=create`, "v\n2\n");
  assert.equal(loose.status, 409);
  assert.match((await loose.json()).detail, /collection 'loose' of database '.*' holds documents already/);
  assert.equal(await t.store.count({ db: t.db, collection: "loose" }), 1);
  assert.equal((await t.app.request("/dataset/loose")).status, 404);
});

storeTest("import mode: replace and append; the older replace=true/false spelling still works", async (t) => {
  const first = await (await upload(t, `${t.db}/p`, "x\n1\n2\n")).json();
  assert.deepEqual([first.mode, first.rows], ["append", 2]); // the default, as before modes existed
  const appended = await (await upload(t, `${t.db}/p?mode=append`, "x\n3\n")).json();
  assert.deepEqual([appended.mode, appended.inserted, appended.replaced, appended.rows], ["append", 1, 0, 3]);
  const replaced = await (await upload(t, `${t.db}/p?mode=replace`, "x\n9\n")).json();
  assert.deepEqual([replaced.mode, replaced.inserted, replaced.replaced, replaced.rows], [
    "replace",
    1,
    3,
    1,
  ]);
  assert.deepEqual(await rows(t, "p"), [{ x: 9 }]);
  const old = await (await upload(t, `${t.db}/p?replace=true`, "x\n7\n8\n")).json();
  assert.deepEqual([old.mode, old.replaced, old.rows], ["replace", 1, 2]);
  const oldAppend = await (await upload(t, `${t.db}/p?replace=false&mode=append`, "x\n6\n")).json();
  assert.deepEqual([oldAppend.mode, oldAppend.rows], ["append", 3]);
  assert.deepEqual(await rows(t, "p"), [{ x: 7 }, { x: 8 }, { x: 6 }]);
  // replace on a new name makes it; the registry says how many rows either way
  const fresh = await (await upload(t, `${t.db}/q?mode=replace`, "y\na\n")).json();
  assert.deepEqual([fresh.mode, fresh.replaced, fresh.rows], ["replace", 0, 1]);
  assert.equal((await findDataset(t.store, t.config.TESSERA_DB, "p"))?.rows, 3);
});

storeTest("import mode: an unknown value is a 422 naming the parameter", async (t) => {
  for (const [q, loc] of [["mode=upsert", "mode"], ["delimiter=x", "delimiter"]]) {
    const res = await upload(t, `${t.db}/c?${q}`, "a\n1\n");
    assert.equal(res.status, 422, q);
    assert.deepEqual((await res.json()).detail[0].loc, ["query", loc], q);
  }
  assert.equal(await t.store.count({ db: t.db, collection: "c" }), 0);
});

// Issue 36: two query parameters together, which /openapi.json cannot refuse, have a meaning instead.
storeTest("import mode: mode wins over replace; JSON and NDJSON do not read a delimiter", async (t) => {
  const created = await upload(t, `${t.db}/c?mode=create&replace=true`, "a\n1\n");
  assert.equal(created.status, 200, await created.clone().text());
  assert.equal((await created.json()).mode, "create");
  const appended = await (await upload(t, `${t.db}/c?mode=append&replace=true`, "a\n2\n")).json();
  assert.deepEqual([appended.mode, appended.rows], ["append", 2]);
  const json = await upload(t, `${t.db}/j?delimiter=%3B`, '[{"a":1}]', "application/json");
  assert.equal(json.status, 200, await json.clone().text());
  assert.deepEqual([(await json.json()).delimiter, await t.store.count({ db: t.db, collection: "j" })], [
    null,
    1,
  ]);
});

storeTest("import CSV: the delimiter is detected (, ; tab |) with quoted fields respected", async (t) => {
  const cases: [string, string, string, Record<string, unknown>[]][] = [
    // a semicolon file with decimal commas, and a quoted cell holding a semicolon
    ["semi", ";", 'name;price;note\nana;1,5;"a;b"\nbo;2;\n', [
      { name: "ana", price: "1,5", note: "a;b" },
      { name: "bo", price: 2, note: null },
    ]],
    // a TSV sent as text/csv: commas inside cells do not split them
    ["tabs", "\t", "city\tpop\nParis, FR\t2.1\nOslo\t0.7\n", [
      { city: "Paris, FR", pop: 2.1 },
      { city: "Oslo", pop: 0.7 },
    ]],
    ["pipes", "|", 'a|b\n"x|y"|1\nz|2\n', [{ a: "x|y", b: 1 }, { a: "z", b: 2 }]],
    // commas win a tie: both split every row the same way
    ["commas", ",", "a,b;c\n1,2;3\n", [{ a: 1, "b;c": "2;3" }]],
    // one column: nothing splits the header
    ["single", ",", "only\n1\n2\n", [{ only: 1 }, { only: 2 }]],
  ];
  for (const [name, delimiter, csv, expected] of cases) {
    const res = await upload(t, `${t.db}/${name}`, csv);
    assert.equal(res.status, 200, name);
    assert.equal((await res.json()).delimiter, delimiter, name);
    assert.deepEqual(await rows(t, name), expected, name);
  }
});

storeTest("import CSV: an explicit delimiter (the character or its name) wins over detection", async (t) => {
  // detection would take ';' (it splits the header in two); the caller says ','
  const given = await upload(t, `${t.db}/given?delimiter=%2C`, "a;b,c\n1;2,3\n");
  assert.equal(given.status, 200);
  assert.equal((await given.json()).delimiter, ",");
  assert.deepEqual(await rows(t, "given"), [{ "a;b": "1;2", c: 3 }]);
  const named = await upload(t, `${t.db}/named?delimiter=semicolon`, "a;b,c\n1;2,3\n");
  assert.equal((await named.json()).delimiter, ";");
  assert.deepEqual(await rows(t, "named"), [{ a: 1, "b,c": "2,3" }]);
  const tsv = await upload(t, `${t.db}/tsv`, "a\tb\n1\t2\n", "text/tab-separated-values");
  assert.equal((await tsv.json()).delimiter, "\t");
  assert.deepEqual(await rows(t, "tsv"), [{ a: 1, b: 2 }]);
  const pipeTsv = await upload(t, `${t.db}/piped?format=tsv&delimiter=pipe`, "a|b\n1|2\n");
  assert.deepEqual(await rows(t, "piped"), [{ a: 1, b: 2 }]);
  assert.equal(pipeTsv.status, 200);
});

storeTest("import CSV: 100,000 columns are refused within a second, naming the limit", async (t) => {
  const header = Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(",");
  const row = Array.from({ length: 100_000 }, (_, i) => String(i)).join(",");
  const body = `${header}\n${row}\n${row}\n`;
  const started = performance.now();
  const res = await upload(t, `${t.db}/wide`, body);
  const took = performance.now() - started;
  assert.equal(res.status, 400);
  assert.equal(
    (await res.json()).detail,
    "line 1: more than 10000 fields (an upload has at most 10000 columns)",
  );
  assert.ok(took < 1000, `refused after ${took.toFixed(0)} ms`);
  assert.equal(await t.store.count({ db: t.db, collection: "wide" }), 0);
  assert.equal((await t.app.request("/dataset/wide")).status, 404);
  // a JSON record past the limit is refused too, named by its item
  const json = await upload(
    t,
    `${t.db}/widejson`,
    JSON.stringify([{ a: 1 }, Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`f${i}`, i]))]),
    "application/json",
  );
  assert.equal(json.status, 400);
  assert.match((await json.json()).detail, /^item 1: more than 10000 fields/);
});

storeTest(
  "import: a second import of a name while one runs is a 409; after it, the name is free",
  async (t) => {
    // an append to an existing dataset holds the name while it runs, like a first import
    assert.equal((await upload(t, `${t.db}/busy`, "i\n0\n")).status, 200);
    let send!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (send = c) });
    send.enqueue(new TextEncoder().encode("i\n1\n"));
    const first = upload(t, `${t.db}/busy?mode=append`, body);
    for (let i = 0; !(await t.store.get({ db: t.config.TESSERA_DB, collection: "imports" }, "busy")); i++) {
      assert.ok(i < 300, "the import never took the name");
      await new Promise((r) => setTimeout(r, 10));
    }
    const second = await upload(t, `${t.db}/busy?mode=replace`, "i\n9\n");
    assert.equal(second.status, 409);
    assert.match(
      (await second.json()).detail,
      /^an import \(mode append\) of 'busy' into '.*' is still running/,
    );
    send.enqueue(new TextEncoder().encode("2\n"));
    send.close();
    assert.equal((await first).status, 200);
    assert.deepEqual(await rows(t, "busy"), [{ i: 0 }, { i: 1 }, { i: 2 }]);
    assert.equal((await upload(t, `${t.db}/busy?mode=replace`, "i\n9\n")).status, 200);
    assert.deepEqual(await rows(t, "busy"), [{ i: 9 }]);
  },
);
