/**
 * Kill an import mid-way: `deno task import` runs as a real child process on a large CSV and is killed
 * (SIGKILL) while its rows go in; then, in this process, what a restart does (`recoverImports`, which
 * waits out the dead import's lease) or what the next import of the name does. On both stores.
 *
 *   A. a first import killed: rolled back; no read endpoint sees a row of it (registry, annotation's
 *      dataset lookup, export, correlations, the collection itself); importing the file again, plain
 *      and then with mode replace, leaves exactly the file's rows.
 *   B. a replacing import killed: rolled back; the old rows are all there, the generation changed.
 *   C. an appending import killed, then (its lease run out) a replacing import of another file, with no
 *      restart: the new import recovers the dead one first and leaves exactly its own file's rows.
 *
 * The decision log (GET /api/decisions) holds no entry of a killed import and one of each completed one.
 */
import assert from "node:assert/strict";
import { MongoClient } from "mongodb";
import { KvStore } from "../../../store/kv.ts";
import { MongoStore } from "../../../store/mongo.ts";
import type { CollectionRef, Doc, Store } from "../../../store/store.ts";
import { createApp } from "../../../app.ts";
import { loadConfig } from "../../../config.ts";
import { servicePool } from "../../support/pools.ts";
import { until } from "../../support/wait.ts";
import { findDataset } from "../../../services/datasets/registry.ts";
import { importText } from "../../../services/datasets/import.ts";
import { importChunksRef, importsRef } from "../../../services/datasets/import_log.ts";
import { recoverImports } from "../../../services/datasets/import_recovery.ts";
import { listDecisions } from "../../../services/decisions/list.ts";
import type { Decider } from "../../../services/decisions/entry.ts";

const MONGO_URL = Deno.env.get("TEST_MONGO_URL");
const ROOT = new URL("../../../", import.meta.url);
const LEASE_S = 2;
const ROWS = 12_000;

/** Row i of the test files, as CSV and as the record an import must store. */
const csvLine = (i: number, tag: string) => `${i},${tag} ${i},${(i % 97) / 4},${i % 2 === 0}`;
const record = (i: number, tag: string) => ({
  id: i,
  name: `${tag} ${i}`,
  score: (i % 97) / 4,
  even: i % 2 === 0,
});

async function writeCsv(path: string, rows: number, tag: string): Promise<void> {
  const lines = ["id,name,score,even"];
  for (let i = 0; i < rows; i++) lines.push(csvLine(i, tag));
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
}

async function* fileText(path: string): AsyncGenerator<string> {
  const f = await Deno.open(path);
  yield* f.readable.pipeThrough(new TextDecoderStream());
}

/** Every document of the collection in stored order, without ids. */
async function stored(store: Store, ref: CollectionRef): Promise<Record<string, unknown>[]> {
  const docs: Doc[] = [];
  for await (const b of store.stream(ref)) docs.push(...b);
  return docs.map(({ _id, ...d }) => d);
}

/** Asserts the collection holds exactly the `rows` records of file `tag`, in order. */
async function holdsExactly(store: Store, ref: CollectionRef, rows: number, tag: string): Promise<void> {
  const docs = await stored(store, ref);
  assert.equal(docs.length, rows);
  for (let i = 0; i < rows; i++) {
    if (JSON.stringify(docs[i]) !== JSON.stringify(record(i, tag))) {
      assert.deepEqual(docs[i], record(i, tag), `row ${i}`);
    }
  }
}

interface Backend {
  store: Store;
  /** The child's environment naming the store. */
  env: Record<string, string>;
  tesseraDb: string;
  db: string;
}

/**
 * `deno task import` as a child process, killed once its journal has logged `batches` batches of new rows
 * (of 1,000: a batch is logged while the one before inserts its rows, so the batches before the last two
 * logged ones are in the store; 4 logged leave at least 2,000 rows in). The journal is watched rather than
 * the collection, which on MongoDB takes too long to count to catch an import mid-way.
 */
async function importKilled(b: Backend, file: string, args: string[], ref: CollectionRef, batches = 4) {
  const env = Deno.env.toObject();
  delete env.MONGO_URL;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "scripts/import.ts",
      file,
      "--db",
      ref.db,
      "--collection",
      ref.collection,
      ...args,
    ],
    cwd: ROOT,
    env: { ...env, ...b.env, TESSERA_DB: b.tesseraDb, IMPORT_LEASE_SECONDS: String(LEASE_S), NO_COLOR: "1" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  let exited = false;
  child.status.then(() => (exited = true));
  try {
    await until("the child import to be mid-way", async () => {
      if (exited) {
        throw new Error(
          `the import ended before it was killed: ${new TextDecoder().decode((await output).stderr)}`,
        );
      }
      return (await b.store.count(importChunksRef(b.tesseraDb), { kind: "new" })) >= batches;
    }, { ms: 60_000, everyMs: 20 });
  } finally {
    if (!exited) child.kill("SIGKILL");
    await output;
  }
  const status = await child.status;
  assert.equal(status.signal, "SIGKILL", "the import was killed, not finished");
}

const WHO: Decider = { sub: "crash-test", username: null };

/** The dataset's log entries, oldest first: kind, mode and counts. */
async function logged(deps: { store: Store; config: { TESSERA_DB: string } }, dataset: string) {
  const page = await listDecisions(deps, { dataset, limit: 50 });
  return page.decisions.reverse().map((e) => [e.kind, e.facts.mode, e.counts]);
}

async function crashAndRecover(b: Backend): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "tessera-crash-" });
  const config = loadConfig({ LOG_LEVEL: "silent", AUTH_MODE: "off", TESSERA_DB: b.tesseraDb });
  const pool = servicePool(1);
  const app = createApp({ config, store: b.store, pool, verifier: null });
  const ref = { db: b.db, collection: "big" };
  const deps = { store: b.store, config };
  try {
    const big = `${dir}/big.csv`, small = `${dir}/small.csv`;
    await writeCsv(big, ROWS, "big");
    await writeCsv(small, 25, "small");

    // A. the first import of a name, killed
    await importKilled(b, big, [], ref);
    const orphans = await b.store.count(ref);
    assert.ok(orphans >= 2000 && orphans < ROWS, `${orphans} rows were in when it died`);
    assert.equal((await findDataset(b.store, b.tesseraDb, "big"))?.importing, true);
    const recovered = await recoverImports(b.store, b.tesseraDb, { leaseMs: LEASE_S * 1000, wait: true });
    assert.deepEqual(recovered.map((r) => [r.dataset, r.action]), [["big", "rolled back"]]);
    // the batch the child had sent when it died may still land (a server finishes a write whose client is
    // gone): it was logged, so the recovery, a lease later, deletes it too
    const deleted = recovered[0].rows_deleted;
    assert.ok(deleted >= orphans && deleted <= orphans + 1000, `${deleted} rows deleted, ${orphans} seen`);
    assert.equal(await b.store.count(ref), 0);
    assert.equal(await findDataset(b.store, b.tesseraDb, "big"), null);
    assert.equal(await b.store.count(importsRef(b.tesseraDb)), 0);
    assert.equal(await b.store.count(importChunksRef(b.tesseraDb)), 0);
    assert.deepEqual(await logged(deps, "big"), [], "a killed import is not logged");
    assert.equal((await app.request("/dataset/big")).status, 404);
    assert.ok(!JSON.stringify(await (await app.request("/dataset")).json()).includes('"big"'));
    assert.equal((await app.request(`/api/datasets/${b.db}/big`)).status, 404);
    const corr = await app.request("/api/correlations/analyze?dataset-id=big", {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    assert.equal(corr.status, 404);
    // the same name again, plain, then replacing: exactly the file's rows each time
    const plain = await importText(deps, { target: ref, format: "csv", text: fileText(big), who: WHO });
    assert.deepEqual([plain.mode, plain.inserted, plain.rows], ["append", ROWS, ROWS]);
    const again = await importText(deps, {
      target: ref,
      format: "csv",
      text: fileText(big),
      mode: "replace",
      who: WHO,
    });
    const imports = [
      ["dataset_import", "append", { imported: ROWS }],
      ["dataset_replace", "replace", { imported: ROWS, replaced: ROWS }],
    ];
    assert.deepEqual(await logged(deps, "big"), imports, "each completed import once");
    assert.deepEqual([again.mode, again.inserted, again.replaced, again.rows], ["replace", ROWS, ROWS, ROWS]);
    await holdsExactly(b.store, ref, ROWS, "big");
    const shape = await app.request("/api/correlations/analyze?dataset-id=big", {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    assert.deepEqual((await shape.json()).dataset_shape, [ROWS, 4]);

    // B. a replacing import of it, killed: the old rows stay, the generation changes
    const before = (await findDataset(b.store, b.tesseraDb, "big"))!;
    await importKilled(b, big, ["--mode", "replace"], ref);
    assert.ok(await b.store.count(ref) >= ROWS + 2000);
    const back = await recoverImports(b.store, b.tesseraDb, { leaseMs: LEASE_S * 1000, wait: true });
    assert.deepEqual(back.map((r) => [r.dataset, r.action, r.mode]), [["big", "rolled back", "replace"]]);
    await holdsExactly(b.store, ref, ROWS, "big");
    const after = (await findDataset(b.store, b.tesseraDb, "big"))!;
    assert.equal(after.rows, ROWS);
    assert.notEqual(after.generation, before.generation);
    assert.deepEqual(await logged(deps, "big"), imports, "the killed replace is not logged");

    // C. an appending import killed; no restart: the next import (after the lease) recovers it itself
    await importKilled(b, big, ["--mode", "append"], ref);
    await new Promise((r) => setTimeout(r, LEASE_S * 1000 + 100));
    const next = await importText(deps, {
      target: ref,
      format: "csv",
      text: fileText(small),
      mode: "replace",
      who: WHO,
    });
    assert.deepEqual(await logged(deps, "big"), [
      ...imports,
      ["dataset_replace", "replace", { imported: 25, replaced: ROWS }],
    ], "the killed append is not logged, the replace that recovered it is, once");
    assert.deepEqual([next.replaced, next.rows], [ROWS, 25]);
    await holdsExactly(b.store, ref, 25, "small");
    assert.equal(await b.store.count(importsRef(b.tesseraDb)), 0);
    assert.equal(await b.store.count(importChunksRef(b.tesseraDb)), 0);
  } finally {
    pool.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("import: killed mid-way, it is rolled back and the name imports again [kv]", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-crash-kv-" });
  const path = `${dir}/t.kv`;
  const store = await KvStore.open(path);
  try {
    await crashAndRecover({ store, env: { KV_PATH: path }, tesseraDb: "tessera", db: "data" });
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "import: killed mid-way, it is rolled back and the name imports again [mongo]",
  ignore: !MONGO_URL,
  async fn() {
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const names = [`tessera_crash_${id}`, `data_crash_${id}`];
    const store = await MongoStore.connect(MONGO_URL!);
    try {
      await crashAndRecover({ store, env: { MONGO_URL: MONGO_URL! }, tesseraDb: names[0], db: names[1] });
    } finally {
      await store.close();
      const client = new MongoClient(MONGO_URL!);
      for (const db of names) await client.db(db).dropDatabase().catch(() => {});
      await client.close();
    }
  },
});
