/**
 * Kill and resume: a runner process claims a job and is killed (SIGKILL) in the middle of it; a second
 * runner process takes the job over only once the lease has expired, and finishes it. On both stores.
 */
import assert from "node:assert/strict";
import { MongoClient } from "mongodb";
import { KvStore } from "../../../store/kv.ts";
import { MongoStore } from "../../../store/mongo.ts";
import type { Store } from "../../../store/store.ts";
import { JobQueue, type JobRecord } from "../../../services/cleaning/job_queue.ts";
import { importRecords } from "../../../services/datasets/import.ts";
import { timeSeriesDemo } from "../../../core/demo/datasets.ts";
import { SERIES_GAPS } from "../../../core/demo/datasets.ts";
import { until } from "../../support/wait.ts";

const MONGO_URL = Deno.env.get("TEST_MONGO_URL");
const LEASE_MS = 1500;
const SCRIPT = new URL("../../support/job_runner_process.ts", import.meta.url).pathname;

/** A runner process; its events arrive as parsed lines. */
function spawnRunner(storeSpec: string, tesseraDb: string, owner: string, delayMs: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SCRIPT],
    env: {
      STORE: storeSpec,
      TESSERA_DB: tesseraDb,
      OWNER: owner,
      DELAY_MS: String(delayMs),
      LEASE_MS: String(LEASE_MS),
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const events: { event: string; job_id?: string; at: number }[] = [];
  const reading = (async () => {
    let buf = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buf += chunk;
      const lines = buf.split("\n");
      buf = lines.pop()!;
      for (const l of lines) if (l.startsWith("{")) events.push(JSON.parse(l));
    }
  })();
  return { child, events, reading };
}

/** Polling for what a runner process does: slower and more patient than the default. */
const WAIT = { ms: 30_000, everyMs: 50 };

async function killAndResume(store: Store, storeSpec: string, tesseraDb: string, dataDb: string) {
  async function* rows() {
    yield* timeSeriesDemo();
  }
  await importRecords(store, tesseraDb, { db: dataDb, collection: "sensor_readings" }, rows());
  const q = new JobQueue(store, tesseraDb);
  const job = await q.create({
    task: "impute",
    dtype: "timeseries",
    method: "linear",
    params: {},
    date_col: "timestamp",
    data: "sensor_readings",
    database: dataDb,
    collection: "sensor_readings",
    columns: ["temperature", "humidity"],
    rows: 1440,
    created_by: "test",
    client_id: null,
  });

  const a = spawnRunner(storeSpec, tesseraDb, "runner-a", 120_000);
  let killedAt = 0;
  let held: JobRecord;
  try {
    // mid-job: claimed, data loaded (progress 0.4), the computation held back in the pool
    held = await until("runner A mid-job", async () => {
      const j = await q.get(job._id);
      return j?.lease_owner === "runner-a" && j.progress >= 0.4 && j;
    }, WAIT);
    await new Promise((r) => setTimeout(r, LEASE_MS)); // at least one renewal happens while it works
    a.child.kill("SIGKILL");
    killedAt = Date.now();
  } finally {
    await a.child.status;
    await a.reading;
  }
  const orphan = (await q.get(job._id))!;
  assert.deepEqual([orphan.status, orphan.lease_owner, orphan.attempt], ["running", "runner-a", 1]);
  assert.ok(
    Date.parse(orphan.lease_expires_at!) > Date.parse(held.lease_expires_at!),
    "the lease was renewed",
  );
  if (Date.now() < Date.parse(orphan.lease_expires_at!) - 200) { // while the lease holds, nobody gets in
    assert.equal(await q.claim("probe", LEASE_MS, 3), null);
  }

  const b = spawnRunner(storeSpec, tesseraDb, "runner-b", 0);
  try {
    const done = await until("runner B to finish", async () => {
      const j = await q.get(job._id);
      return j?.status === "succeeded" && j;
    }, WAIT);
    const claim = b.events.find((e) => e.event === "claimed")!;
    assert.ok(claim.at >= Date.parse(orphan.lease_expires_at!), "claimed only after the lease expired");
    assert.ok(claim.at - killedAt < LEASE_MS + 3000, "and soon after");
    assert.deepEqual([done.attempt, done.interruptions, done.lease_owner], [2, 1, null]);
    const gaps = SERIES_GAPS.reduce((s, [x, y]) => s + y - x, 0);
    assert.deepEqual(done.summary?.filled_by_column, { temperature: gaps, humidity: gaps });
    assert.equal(done.results?.attempt, 2);
  } finally {
    b.child.kill("SIGKILL");
    await b.child.status;
    await b.reading;
  }
}

Deno.test("jobs: a runner killed mid-job is replaced once its lease expires [kv]", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tessera-kill-" });
  const path = `${dir}/jobs.kv`;
  const store = await KvStore.open(path);
  try {
    await killAndResume(store, `kv:${path}`, "tessera", "demo");
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "jobs: a runner killed mid-job is replaced once its lease expires [mongo]",
  ignore: !MONGO_URL,
  async fn() {
    const id = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const names = [`tessera_kill_${id}`, `data_kill_${id}`];
    const store = await MongoStore.connect(MONGO_URL!);
    try {
      await killAndResume(store, `mongo:${MONGO_URL}`, names[0], names[1]);
    } finally {
      await store.close();
      const client = new MongoClient(MONGO_URL!);
      for (const db of names) await client.db(db).dropDatabase().catch(() => {});
      await client.close();
    }
  },
});
