/**
 * `deno task import` as a user runs it: a child process over a temporary KV file (MONGO_URL removed,
 * so it never reaches a server the runner started), then the file read back.
 */
import assert from "node:assert/strict";
import { KvStore } from "../../store/kv.ts";
import { findDataset } from "../../services/datasets/registry.ts";
import { listDecisions } from "../../services/decisions/list.ts";

const ROOT = new URL("../../", import.meta.url);

/** Runs scripts/import.ts with `args` (and `extra` variables) against the KV file `kvPath`; exit code and output. */
async function runImport(kvPath: string, args: string[], extra: Record<string, string> = {}) {
  const env = Deno.env.toObject();
  delete env.MONGO_URL;
  delete env.INIT_CWD;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "scripts/import.ts", ...args],
    cwd: ROOT,
    env: { ...env, KV_PATH: kvPath, TESSERA_DB: "tessera", NO_COLOR: "1", ...extra },
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** Reads the KV file the child wrote (opened only after the child exited). */
async function withStore<T>(kvPath: string, fn: (store: KvStore) => Promise<T>): Promise<T> {
  const store = await KvStore.open(kvPath);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

Deno.test("deno task import: a CSV file lands typed and catalogued; the route's refusals apply", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-import-" });
  try {
    const kvPath = `${dir}/t.kv`;
    await Deno.writeTextFile(`${dir}/people.csv`, "name,age\nana,31\nbo,7\n");
    const ok = await runImport(kvPath, [`${dir}/people.csv`, "--db", "demo", "--collection", "people"], {
      USER: "ann",
    });
    assert.equal(ok.code, 0, ok.stderr);
    const result = JSON.parse(ok.stdout);
    assert.deepEqual([result.inserted, result.rows], [2, 2]);
    await withStore(kvPath, async (store) => {
      const docs = await store.list({ db: "demo", collection: "people" });
      assert.deepEqual(docs.map(({ _id, ...d }) => d), [{ name: "ana", age: 31 }, { name: "bo", age: 7 }]);
      assert.equal((await findDataset(store, "tessera", "people"))?.database, "demo");
      // logged as a decision of the operating system's user
      const [entry] =
        (await listDecisions({ store, config: { TESSERA_DB: "tessera" } }, { limit: 5 })).decisions;
      assert.deepEqual([entry.kind, entry.user, entry.counts], ["dataset_import", {
        sub: "cli:ann",
        username: "ann",
      }, {
        imported: 2,
      }]);
      assert.deepEqual([entry.facts.via, entry.facts.file, entry.facts.mode], [
        "cli",
        "people.csv",
        "append",
      ]);
    });

    const own = await runImport(kvPath, [`${dir}/people.csv`, "--db", "tessera", "--collection", "x"]);
    assert.equal(own.code, 1);
    assert.match(own.stderr, /database 'tessera' holds Tessera's own records/);
    const badName = await runImport(kvPath, [`${dir}/people.csv`, "--db", "demo", "--collection", "$x"]);
    assert.equal(badName.code, 1);
    assert.match(badName.stderr, /collection name '\$x' must start with a letter or digit/);
    await withStore(kvPath, async (store) => {
      assert.equal(await store.count({ db: "tessera", collection: "x" }), 0);
      assert.equal(await store.count({ db: "demo", collection: "$x" }), 0);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task import: an unknown extension needs --format; a bad line keeps nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-import-" });
  try {
    const kvPath = `${dir}/t.kv`;
    await Deno.writeTextFile(`${dir}/points.txt`, '{"x":1}\n{"x":2}\n');
    const guess = await runImport(kvPath, [`${dir}/points.txt`, "--db", "demo", "--collection", "points"]);
    assert.equal(guess.code, 2);
    assert.match(guess.stderr, /cannot tell the format of .*points\.txt.*pass --format csv\|ndjson\|json/);
    const given = await runImport(kvPath, [
      `${dir}/points.txt`,
      ...["--format", "ndjson", "--db", "demo", "--collection", "points"],
    ]);
    assert.equal(given.code, 0, given.stderr);
    assert.equal(JSON.parse(given.stdout).inserted, 2);

    await Deno.writeTextFile(`${dir}/more.ndjson`, '{"x":3}\n{"x":\n');
    const bad = await runImport(kvPath, [`${dir}/more.ndjson`, "--db", "demo", "--collection", "points"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /import failed: line 2: not valid JSON/);
    await withStore(kvPath, async (store) => {
      const docs = await store.list({ db: "demo", collection: "points" });
      assert.deepEqual(docs.map((d) => d.x), [1, 2]);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task import: --mode, a detected or given --delimiter, and paths from INIT_CWD", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-import-" });
  try {
    const kvPath = `${dir}/t.kv`;
    await Deno.writeTextFile(`${dir}/semi.csv`, "name;score\nana;1,5\nbo;2\n");
    await Deno.writeTextFile(`${dir}/table.tsv`, "a\tb\nx, y\t1\n");
    await Deno.writeTextFile(`${dir}/mixed.csv`, "a;b,c\n1;2,3\n");
    // a relative path is read from the directory the command was run in (INIT_CWD), not the project's
    const first = await runImport(kvPath, [
      "semi.csv",
      "--db",
      "demo",
      "--collection",
      "semi",
      "--mode",
      "create",
    ], {
      INIT_CWD: dir,
    });
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(
      [JSON.parse(first.stdout).mode, JSON.parse(first.stdout).delimiter, JSON.parse(first.stdout).rows],
      ["create", ";", 2],
    );
    const again = await runImport(kvPath, [
      "semi.csv",
      "--db",
      "demo",
      "--collection",
      "semi",
      "--mode",
      "create",
    ], {
      INIT_CWD: dir,
    });
    assert.equal(again.code, 1);
    assert.match(
      again.stderr,
      /import failed: a dataset named 'semi' exists already .*use mode replace or append/,
    );
    const given = await runImport(kvPath, [
      `${dir}/mixed.csv`,
      ...["--db", "demo", "--collection", "semi", "--mode", "replace", "--delimiter", ","],
    ]);
    assert.equal(given.code, 0, given.stderr);
    assert.deepEqual([JSON.parse(given.stdout).replaced, JSON.parse(given.stdout).delimiter], [2, ","]);
    const tsv = await runImport(kvPath, [`${dir}/table.tsv`, "--db", "demo", "--collection", "table"]);
    assert.equal(tsv.code, 0, tsv.stderr);
    await withStore(kvPath, async (store) => {
      const semi = await store.list({ db: "demo", collection: "semi" });
      assert.deepEqual(semi.map(({ _id, ...d }) => d), [{ "a;b": "1;2", c: 3 }]);
      const table = await store.list({ db: "demo", collection: "table" });
      assert.deepEqual(table.map(({ _id, ...d }) => d), [{ a: "x, y", b: 1 }]);
    });
    for (
      const [args, message] of [
        [["--mode", "upsert"], /unknown mode 'upsert': use create, replace or append/],
        [["--mode", "create", "--replace"], /--replace contradicts --mode create/],
        [["--delimiter", ":"], /unknown delimiter ':'/],
      ] as const
    ) {
      const bad = await runImport(kvPath, [`${dir}/semi.csv`, "--db", "demo", "--collection", "x", ...args]);
      assert.equal(bad.code, 2, args.join(" "));
      assert.match(bad.stderr, message);
    }
    const missing = await runImport(kvPath, ["nowhere.csv", "--db", "demo", "--collection", "x"], {
      INIT_CWD: dir,
    });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, new RegExp(`import refused: cannot read '${dir}/nowhere.csv'`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
