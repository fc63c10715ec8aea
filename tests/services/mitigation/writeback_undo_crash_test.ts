/**
 * Kill a write-back's undo mid-way (issue 37): a real child process undoes the write-back and is killed
 * (SIGKILL) after two of its five pages; then what a restart does (startWritebackRecovery, which waits out
 * the dead undo's lease). The collection must equal its state before the write-back, and the log must
 * hold the write-back and the undo once each. On both stores.
 */
import assert from "node:assert/strict";
import { MongoClient } from "mongodb";
import { KvStore } from "../../../store/kv.ts";
import { MongoStore } from "../../../store/mongo.ts";
import type { CollectionRef, Doc, Store } from "../../../store/store.ts";
import { loadConfig } from "../../../config.ts";
import { createTaskDocument } from "../../../services/tasks/task_documents.ts";
import { writeBack } from "../../../services/mitigation/writeback.ts";
import { undoWriteback } from "../../../services/mitigation/writeback_undo.ts";
import { startWritebackRecovery } from "../../../services/mitigation/writeback_recovery.ts";
import { writebacksRef } from "../../../services/mitigation/writeback_log.ts";
import { listDecisions } from "../../../services/decisions/list.ts";

const MONGO_URL = Deno.env.get("TEST_MONGO_URL");
const ROOT = new URL("../../../", import.meta.url);
const N = 5000;
const LEASE_S = 1;

async function documents(store: Store, ref: CollectionRef): Promise<Doc[]> {
  const out: Doc[] = [];
  for await (const b of store.stream(ref)) out.push(...b);
  return out;
}

/** Runs the undo in a child process and kills it after `pages` of its bulk updates. */
async function undoKilled(storeSpec: string, tesseraDb: string, writebackId: string, pages: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "tests/support/writeback_undo_process.ts"],
    cwd: ROOT,
    env: {
      STORE: storeSpec,
      TESSERA_DB: tesseraDb,
      TASK: "big",
      WRITEBACK_ID: writebackId,
      DELAY_MS: "300",
      LEASE_SECONDS: String(LEASE_S),
      NO_COLOR: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = 0, text = "";
  while (seen < pages) {
    const { value, done } = await lines.read();
    if (done) break;
    text += value;
    seen = text.split("\n").filter((l) => l === "page").length;
  }
  child.kill("SIGKILL");
  await lines.cancel().catch(() => {});
  const status = await child.status;
  const stderr = await new Response(child.stderr).text();
  assert.equal(seen >= pages, true, `the child ended before ${pages} pages: ${text} ${stderr}`);
  assert.equal(status.signal, "SIGKILL", "the undo was killed, not finished");
}

async function crashAndRecover(store: Store, storeSpec: string, tesseraDb: string, db: string) {
  const config = loadConfig({ LOG_LEVEL: "silent", AUTH_MODE: "off", TESSERA_DB: tesseraDb });
  const deps = { store, config };
  const ref = { db, collection: "big" };
  const ids = await store.insertMany(ref, Array.from({ length: N }, (_, i) => ({ n: i, y_pred: i % 2 })));
  await createTaskDocument(deps, { database_name: db, data_collection_name: "big", status: "pending" });
  const who = { sub: "writer-1", username: "wes" };
  // a first write-back: the values the second replaces, which the undo must bring back
  const preds = (f: (i: number) => number) => ids.map((doc_id, i) => ({ doc_id, y_pred: f(i) }));
  await writeBack(deps, {
    collectionName: "big",
    newField: "fair",
    who,
    preds: preds((i) => i % 3 === 0 ? 1 : 0),
  });
  const before = await documents(store, ref);
  const wb = await writeBack(deps, {
    collectionName: "big",
    newField: "fair",
    who,
    preds: preds((i) => i % 3 === 0 ? 0 : 1),
  });
  assert.equal(wb.modified, N);

  await undoKilled(storeSpec, tesseraDb, wb.writeback_id, 2);
  const mid = await documents(store, ref);
  const back = mid.filter((d, i) => d.fair === before[i].fair).length;
  assert.ok(back >= 1000 && back < N, `${back} of ${N} documents were restored when it died`);
  const rec = await store.get(writebacksRef(tesseraDb), wb.writeback_id);
  assert.equal(rec?.undo_state, "running");

  // the restart
  const recovery = await startWritebackRecovery(store, tesseraDb, LEASE_S * 1000);
  recovery.stop();
  assert.deepEqual(await documents(store, ref), before);
  const log = await listDecisions(deps, { task: "big", limit: 100 });
  const ofIt = log.decisions.filter((e) => e.writeback_id === wb.writeback_id);
  assert.deepEqual(ofIt.map((e) => [e.kind, e.user.username]), [["writeback_undo", "sam"], [
    "writeback",
    "wes",
  ]]);
  assert.deepEqual(ofIt[0].counts, { restored: N, skipped: 0, missing: 0 });
  // asked again after the restart: the same undo, nothing more
  const again = await undoWriteback(deps, { collectionName: "big", writebackId: wb.writeback_id, who });
  assert.deepEqual([again.restored, again.undone_by.username], [N, "sam"]);
  assert.equal((await listDecisions(deps, { task: "big", limit: 100 })).decisions.length, 3);
}

Deno.test("writeback undo killed mid-way is finished at restart [kv]", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-undo-crash-" });
  const path = `${dir}/t.kv`;
  const store = await KvStore.open(path);
  try {
    await crashAndRecover(store, `kv:${path}`, "tessera", "data");
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "writeback undo killed mid-way is finished at restart [mongo]",
  ignore: !MONGO_URL,
  async fn() {
    const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const [tesseraDb, db] = [`undo_crash_t_${suffix}`, `undo_crash_d_${suffix}`];
    const store = await MongoStore.connect(MONGO_URL!);
    try {
      await crashAndRecover(store, `mongo:${MONGO_URL}`, tesseraDb, db);
    } finally {
      await store.close();
      const client = await new MongoClient(MONGO_URL!).connect();
      for (const name of [tesseraDb, db]) await client.db(name).dropDatabase().catch(() => {});
      await client.close();
    }
  },
});
