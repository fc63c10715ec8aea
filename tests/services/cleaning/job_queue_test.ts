import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../../support/stores.ts";
import { JobQueue, type NewJob } from "../../../services/cleaning/job_queue.ts";
import { JobRunner, startJobRunner, type TaskRunner } from "../../../services/cleaning/job_runner.ts";
import { TestPool as WorkerPool } from "../../support/pools.ts";
import { loadConfig } from "../../../config.ts";
import { importRecords } from "../../../services/datasets/import.ts";
import { type CleaningInput, runCleaning } from "../../../core/cleaning/run.ts";

async function* rows(n: number) {
  for (let i = 0; i < n; i++) yield { x: i % 7 === 0 ? null : i, y: (i * 37) % 11 };
}

/** A 50-row dataset and the fields of a mean-imputation job on it. */
async function tinyJob(t: StoreApp): Promise<NewJob> {
  await importRecords(t.store, t.config.TESSERA_DB, { db: t.db, collection: "tiny" }, rows(50));
  return {
    task: "impute",
    dtype: "tabular",
    method: "mean",
    params: {},
    date_col: null,
    data: "tiny",
    database: t.db,
    collection: "tiny",
    columns: ["x"],
    rows: 50,
    created_by: "test",
    client_id: null,
  };
}

storeTest("job queue: a lease keeps others out, expires, and fences the runner that lost it", async (t) => {
  let now = Date.UTC(2026, 0, 1);
  const q = new JobQueue(t.store, t.config.TESSERA_DB, () => now);
  const job = await q.create(await tinyJob(t));
  const a = await q.claim("A", 1000, 3);
  assert.deepEqual([a?.attempt, a?.lease_owner, a?.status], [1, "A", "running"]);
  now += 500;
  assert.equal(await q.claim("B", 1000, 3), null);
  assert.equal(await q.renew(a!, 1000, 0.5), true); // lease now ends at +1500
  now += 900;
  assert.equal(await q.claim("B", 1000, 3), null);
  assert.equal((await q.get(job._id))?.progress, 0.5);
  now += 100; // the lease has expired: B takes over
  const b = await q.claim("B", 1000, 3);
  assert.deepEqual([b?.attempt, b?.interruptions, b?.lease_owner], [2, 1, "B"]);
  assert.equal(await q.renew(a!, 1000), false);
  assert.equal(await q.succeed(a!, {}, { attempt: 1, pages: 0, total: 0 }), false);
  assert.equal(await q.succeed(b!, { ok: true }, { attempt: 2, pages: 1, total: 0 }), true);
  const done = await q.get(job._id);
  assert.deepEqual([done?.status, done?.progress, done?.lease_owner, done?.summary], ["succeeded", 1, null, {
    ok: true,
  }]);
  assert.equal(await q.claim("C", 1000, 3), null);
  assert.deepEqual(await q.listNew(), []);
});

storeTest("job queue: a job whose worker keeps dying is failed after JOB_MAX_ATTEMPTS", async (t) => {
  let now = 0;
  const q = new JobQueue(t.store, t.config.TESSERA_DB, () => now);
  const job = await q.create(await tinyJob(t));
  for (const owner of ["A", "B"]) {
    assert.ok(await q.claim(owner, 1000, 2));
    now += 1000;
  }
  assert.equal(await q.claim("C", 1000, 2), null);
  const failed = await q.get(job._id);
  assert.equal(failed?.status, "failed");
  assert.equal(failed?.error?.type, "interrupted");
  assert.match(failed!.error!.message, /stopped 2 times/);
});

/** A task runner computing in place, counting runs per job's columns and waiting `ms` first. */
function countingPool(ms: number) {
  const runs: string[] = [];
  const pool: TaskRunner = {
    async run<T>(_task: string, payload: unknown): Promise<T> {
      const input = payload as CleaningInput;
      runs.push(input.columns[0].name);
      await new Promise((r) => setTimeout(r, ms));
      return runCleaning(input) as T;
    },
  };
  return { pool, runs };
}

const options = { leaseMs: 5000, pollMs: 20, timeoutMs: 10_000, maxAttempts: 3, concurrency: 2 };

storeTest("job runners: two instances on one store run each of eight jobs exactly once", async (t) => {
  const fields = await tinyJob(t);
  const q = new JobQueue(t.store, t.config.TESSERA_DB);
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push((await q.create({ ...fields, columns: [i % 2 ? "x" : "y"] }))._id);
  const { pool, runs } = countingPool(30);
  const runners = ["one", "two"].map((owner) =>
    new JobRunner(t.store, t.config.TESSERA_DB, pool, { ...options, owner })
  );
  const claimedBy: string[] = [];
  for (const r of runners) {
    (r as unknown as { opts: { onEvent: (e: string) => void } }).opts.onEvent = (e) =>
      e === "claimed" && claimedBy.push(r.owner);
    r.start();
  }
  try {
    for (let i = 0; i < 400 && (await q.listNew()).length; i++) await new Promise((r) => setTimeout(r, 25));
    await Promise.all(runners.map((r) => r.idle()));
  } finally {
    await Promise.all(runners.map((r) => r.stop()));
  }
  assert.equal(runs.length, 8);
  for (const id of ids) {
    const job = await q.get(id);
    assert.deepEqual([job?.status, job?.attempt], ["succeeded", 1]);
  }
  assert.ok(new Set(claimedBy).size === 2, `claims: ${claimedBy}`); // both instances took work
});

storeTest(
  "job runners: stop hands a running job back; the late result is refused; another finishes it",
  async (t) => {
    const q = new JobQueue(t.store, t.config.TESSERA_DB);
    const job = await q.create(await tinyJob(t));
    const slow = countingPool(400);
    const first = new JobRunner(t.store, t.config.TESSERA_DB, slow.pool, { ...options, owner: "first" });
    first.start();
    for (let i = 0; i < 200 && slow.runs.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    await first.stop();
    const back = await q.get(job._id);
    assert.deepEqual([back?.status, back?.lease_owner, back?.attempt], ["queued", null, 1]);
    const second = new JobRunner(t.store, t.config.TESSERA_DB, countingPool(0).pool, {
      ...options,
      owner: "second",
    });
    assert.equal(await second.runOnce(), job._id);
    await first.idle(); // the first computation ends now and must not write
    const done = await q.get(job._id);
    assert.deepEqual([done?.status, done?.attempt, done?.results?.attempt], ["succeeded", 2, 2]);
    assert.equal(done?.summary?.cells_filled, 8); // rows 0, 7, …, 49: eight gaps in x
  },
);

storeTest("job runners: a claim under way when stop() comes hands its job back at once", async (t) => {
  const q = new JobQueue(t.store, t.config.TESSERA_DB);
  const job = await q.create(await tinyJob(t));
  const { pool, runs } = countingPool(0);
  const runner = new JobRunner(t.store, t.config.TESSERA_DB, pool, { ...options, owner: "stopping" });
  // the runner's claim waits at a gate, so stop() comes while it is under way
  let entered!: () => void, open!: () => void;
  const claimEntered = new Promise<void>((r) => entered = r);
  const gate = new Promise<void>((r) => open = r);
  const claim = runner.queue.claim.bind(runner.queue);
  runner.queue.claim = async (...args) => {
    entered();
    await gate;
    return await claim(...args);
  };
  const events: string[] = [];
  (runner as unknown as { opts: { onEvent: (e: string) => void } }).opts.onEvent = (e) => events.push(e);
  runner.start();
  await claimEntered;
  const stopped = runner.stop();
  open();
  await stopped;
  // when stop() resolves, the job is back in the queue: no lease of the stopped runner to wait out
  const back = await q.get(job._id);
  assert.deepEqual([back?.status, back?.lease_owner, back?.lease_expires_at], ["queued", null, null]);
  assert.deepEqual(events, ["released"]);
  await runner.idle();
  assert.equal(runs.length, 0, "the stopped runner computed nothing");
  const other = new JobRunner(t.store, t.config.TESSERA_DB, pool, { ...options, owner: "other" });
  assert.equal(await other.runOnce(), job._id);
  assert.equal((await q.get(job._id))?.status, "succeeded");
});

storeTest(
  "job runners: a computation past the time limit fails the job with time_limit, queued time included",
  async (t) => {
    const q = new JobQueue(t.store, t.config.TESSERA_DB);
    const job = await q.create(await tinyJob(t));
    // the pool's only worker spins past the job's limit, so the job's task never leaves the queue
    const pool = new WorkerPool(new URL("../../support/pool_worker.ts", import.meta.url), 1);
    const busy = pool.run("spin", { ms: 1500 });
    const runner = new JobRunner(t.store, t.config.TESSERA_DB, pool, { ...options, timeoutMs: 200 });
    try {
      const started = Date.now();
      assert.equal(await runner.runOnce(), job._id);
      const took = Date.now() - started;
      assert.ok(took >= 200 && took < 1500, `failed after ${took} ms`);
      assert.equal(pool.queued, 0, "the expired task left the pool's queue");
      const failed = await q.get(job._id);
      assert.deepEqual([failed?.status, failed?.error?.type, failed?.lease_owner], [
        "failed",
        "time_limit",
        null,
      ]);
      assert.equal(failed?.error?.message, "time limit of 0.2 s reached");
    } finally {
      pool.close();
      await busy.catch(() => {});
    }
  },
);

storeTest("job runners: stop aborts the job's computation in the pool", async (t) => {
  const q = new JobQueue(t.store, t.config.TESSERA_DB);
  await q.create(await tinyJob(t));
  const signals: AbortSignal[] = [];
  const pool: TaskRunner = {
    run: (_task, _payload, opts) =>
      new Promise((_, reject) => {
        signals.push(opts!.signal!);
        opts!.signal!.addEventListener("abort", () => reject(new Error("aborted")));
      }),
  };
  const runner = new JobRunner(t.store, t.config.TESSERA_DB, pool, { ...options, leaseMs: 300 });
  runner.start();
  for (let i = 0; i < 300 && !signals.length; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(signals.length, 1);
  assert.equal(signals[0].aborted, false);
  await runner.stop();
  await runner.idle(); // settles only once the pool's task was aborted: the heartbeat (every 100 ms) sees the stop
  assert.equal(signals[0].aborted, true);
  assert.equal((await q.listNew()).length, 1, "the job went back to the queue");
});

storeTest(
  "startJobRunner: a pool that can start no Web Worker and has no inline table fails the job with workers_unavailable",
  async (t) => {
    const q = new JobQueue(t.store, t.config.TESSERA_DB);
    const job = await q.create(await tinyJob(t));
    const config = loadConfig({ LOG_LEVEL: "silent", AUTH_MODE: "off", TESSERA_DB: t.config.TESSERA_DB });
    const real = globalThis.Worker;
    globalThis.Worker = class {
      constructor() {
        throw new TypeError("Worker is not supported");
      }
    } as unknown as typeof Worker;
    const pool = new WorkerPool(new URL("../../../workers/worker.ts", import.meta.url), 1);
    const runner = startJobRunner(config, t.store, pool);
    try {
      for (let i = 0; i < 300 && (await q.get(job._id))?.status !== "failed"; i++) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const failed = await q.get(job._id);
      assert.deepEqual([failed?.status, failed?.error?.type], ["failed", "workers_unavailable"]);
      assert.equal(failed?.error?.message, "cannot start a web worker here: Worker is not supported");
    } finally {
      await runner?.stop();
      pool.close();
      globalThis.Worker = real;
    }
    const off = loadConfig({ LOG_LEVEL: "silent", AUTH_MODE: "off", JOBS_ENABLED: "false" });
    assert.equal(startJobRunner(off, t.store, pool), null);
  },
);
