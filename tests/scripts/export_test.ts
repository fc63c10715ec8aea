/**
 * `deno task export` as a user runs it, as a child process over each store (a temporary KV file with
 * MONGO_URL removed; MongoDB at TEST_MONGO_URL with databases of its own, when `deno task test` gives one):
 * its file and its stdout equal what the route answers for the same collection, --out lands relative to
 * the directory the command was run in, and its refusals write nothing.
 */
import assert from "node:assert/strict";
import { MongoClient } from "mongodb";
import { KvStore } from "../../store/kv.ts";
import { MongoStore } from "../../store/mongo.ts";
import type { Store } from "../../store/store.ts";
import { loadConfig } from "../../config.ts";
import { createApp } from "../../app.ts";
import { importText } from "../../services/datasets/import.ts";
import { INTERNAL_DECIDER } from "../../services/datasets/dataset_decisions.ts";
import { servicePool } from "../support/pools.ts";

const ROOT = new URL("../../", import.meta.url);
const MONGO_URL = Deno.env.get("TEST_MONGO_URL");

/** One store as the child and the test each open it. */
interface Backend {
  env: Record<string, string>;
  tesseraDb: string;
  db: string;
  open(): Promise<Store>;
}

/** Runs `deno task export` (through the project's deno.json) in `cwd`; exit code and output. */
async function runExport(backend: Backend, cwd: string, args: string[]) {
  const env = Deno.env.toObject();
  delete env.MONGO_URL;
  delete env.INIT_CWD;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "--config", new URL("deno.json", ROOT).pathname, "export", ...args],
    cwd,
    env: { ...env, ...backend.env, TESSERA_DB: backend.tesseraDb, NO_COLOR: "1" },
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** Runs fn over the store, closed again afterwards (the child opens it only while the test has it closed). */
async function withStore<T>(backend: Backend, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await backend.open();
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** What the route answers for `path` with `accept`, over the same store. */
function viaRoute(backend: Backend, path: string, accept: string): Promise<string> {
  return withStore(backend, async (store) => {
    const config = loadConfig({ LOG_LEVEL: "silent", AUTH_MODE: "off", TESSERA_DB: backend.tesseraDb });
    const pool = servicePool(1);
    try {
      const res = await createApp({ config, store, pool, verifier: null }).request(path, {
        headers: { accept },
      });
      assert.equal(res.status, 200);
      return await res.text();
    } finally {
      pool.close();
    }
  });
}

async function* once(text: string) {
  yield text;
}

const PEOPLE = 'name,age,note\nana,31,"likes, commas"\nbo,,"she said ""hi"""\ncy,7,"two\nlines"\n';

async function exportScenario(backend: Backend, dir: string) {
  const { db } = backend;
  await withStore(backend, (store) =>
    importText({ store, config: { TESSERA_DB: backend.tesseraDb } }, {
      target: { db, collection: "people" },
      format: "csv",
      text: once(PEOPLE),
      replace: false,
      who: INTERNAL_DECIDER,
    }));

  // --out relative to the directory the command ran in (not the project's, where deno task runs it);
  // the extension chooses CSV
  const work = `${dir}/work`;
  await Deno.mkdir(work);
  const csv = await runExport(backend, work, ["--db", db, "--collection", "people", "--out", "people.csv"]);
  assert.equal(csv.code, 0, csv.stderr);
  assert.equal(csv.stdout, "");
  const file = await Deno.readTextFile(`${work}/people.csv`);
  assert.equal(file, await viaRoute(backend, `/api/datasets/${db}/people`, "text/csv"));
  assert.equal(file.split("\r\n")[0], "_id,name,age,note");
  assert.deepEqual([...Deno.readDirSync(work)].map((e) => e.name), ["people.csv"]); // no temporary left

  // stdout, NDJSON by default
  const nd = await runExport(backend, work, ["--db", db, "--collection", "people"]);
  assert.equal(nd.code, 0, nd.stderr);
  assert.equal(nd.stdout, await viaRoute(backend, `/api/datasets/${db}/people`, "application/x-ndjson"));
  assert.deepEqual(nd.stdout.trim().split("\n").map((l) => JSON.parse(l).note), [
    "likes, commas",
    'she said "hi"',
    "two\nlines",
  ]);

  // --fields and --format, into a file whose name says nothing
  const some = await runExport(backend, work, [
    ...["--db", db, "--collection", "people", "--fields", "age", "--format", "csv", "--out", "ages.txt"],
  ]);
  assert.equal(some.code, 0, some.stderr);
  assert.equal(
    await Deno.readTextFile(`${work}/ages.txt`),
    await viaRoute(backend, `/api/datasets/${db}/people?fields=age`, "text/csv"),
  );

  // refusals: nothing written
  const own = await runExport(backend, work, ["--db", backend.tesseraDb, "--collection", "datasets"]);
  assert.equal(own.code, 1);
  assert.match(
    own.stderr,
    new RegExp(`export refused: --db: database '${backend.tesseraDb}' holds Tessera's`),
  );
  const none = await runExport(backend, work, ["--db", db, "--collection", "nobody", "--out", "x.ndjson"]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, new RegExp(`export failed: no collection 'nobody' in database '${db}'`));
  const typo = await runExport(backend, work, ["--db", db, "--collection", "people", "--fields", "agee"]);
  assert.equal(typo.code, 1);
  assert.match(typo.stderr, /export failed: --fields: no document of 'people' has the field 'agee'/);
  assert.equal(typo.stdout, "");
  const empty = await runExport(backend, work, ["--db", db, "--collection", "people", "--fields", "a,,b"]);
  assert.equal(empty.code, 2);
  assert.match(
    empty.stderr,
    /--fields: the 2nd of 3 comma-separated names is empty\nusage: deno task export/,
  );
  const fmt = await runExport(backend, work, ["--db", db, "--collection", "people", "--format", "json"]);
  assert.equal(fmt.code, 2);
  assert.match(fmt.stderr, /unknown format 'json': use ndjson or csv/);
  assert.deepEqual([...Deno.readDirSync(work)].map((e) => e.name).sort(), ["ages.txt", "people.csv"]);
}

Deno.test("deno task export [kv]: the file and stdout equal the route's answer; refusals write nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-export-" });
  try {
    const kvPath = `${dir}/t.kv`;
    await exportScenario({
      env: { KV_PATH: kvPath },
      tesseraDb: "tessera",
      db: "demo",
      open: () => KvStore.open(kvPath),
    }, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "deno task export [mongo]: the file and stdout equal the route's answer; refusals write nothing",
  ignore: !MONGO_URL,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "tessera-export-" });
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
    const names = { tesseraDb: `tessera_t_${id}`, db: `data_t_${id}` };
    try {
      await exportScenario({
        env: { MONGO_URL: MONGO_URL! },
        ...names,
        open: () => MongoStore.connect(MONGO_URL!),
      }, dir);
    } finally {
      await Deno.remove(dir, { recursive: true });
      const client = new MongoClient(MONGO_URL!);
      try {
        for (const db of Object.values(names)) await client.db(db).dropDatabase();
      } finally {
        await client.close();
      }
    }
  },
});
