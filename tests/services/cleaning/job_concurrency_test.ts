/**
 * JOB_CONCURRENCY is a per-instance limit: one runner with concurrency 1 never has two jobs computing at
 * once, however its polls and the ends of its jobs interleave (issue 21: two ran at once on one instance,
 * four times in a run). The store answers listings slowly here, so that claims take long enough to
 * overlap if anything lets two run side by side.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../../support/stores.ts";
import { JobQueue, type NewJob } from "../../../services/cleaning/job_queue.ts";
import { JobRunner, type TaskRunner } from "../../../services/cleaning/job_runner.ts";
import type { Store } from "../../../store/store.ts";
import { importRecords } from "../../../services/datasets/import.ts";
import { type CleaningInput, runCleaning } from "../../../core/cleaning/run.ts";

async function* rows(n: number) {
  for (let i = 0; i < n; i++) yield { x: i % 5 === 0 ? null : i };
}

async function meanJob(t: StoreApp): Promise<NewJob> {
  await importRecords(t.store, t.config.TESSERA_DB, { db: t.db, collection: "few" }, rows(20));
  return {
    task: "impute",
    dtype: "tabular",
    method: "mean",
    params: {},
    date_col: null,
    data: "few",
    database: t.db,
    collection: "few",
    columns: ["x"],
    rows: 20,
    created_by: "test",
    client_id: null,
  };
}

/** The store with every `list` (the queue's look for work) answered `ms` later. */
function slowListing(store: Store, ms: number): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (prop === "list") {
        return async (...args: unknown[]) => {
          await new Promise((r) => setTimeout(r, ms));
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A pool that computes for `ms` and records how many computations ran at once, at most. */
function watchedPool(ms: number) {
  const seen = { running: 0, most: 0, runs: 0 };
  const pool: TaskRunner = {
    async run<T>(_task: string, payload: unknown): Promise<T> {
      seen.running++;
      seen.runs++;
      seen.most = Math.max(seen.most, seen.running);
      try {
        await new Promise((r) => setTimeout(r, ms));
        return runCleaning(payload as CleaningInput) as T;
      } finally {
        seen.running--;
      }
    },
  };
  return { pool, seen };
}

async function settled(q: JobQueue, ids: string[]): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    const jobs = await Promise.all(ids.map((id) => q.get(id)));
    if (jobs.every((j) => j?.status === "succeeded")) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the jobs did not finish");
}

storeTest("job runner: JOB_CONCURRENCY=1 never runs two of its jobs at once", async (t) => {
  const fields = await meanJob(t);
  const store = slowListing(t.store, 15);
  const q = new JobQueue(store, t.config.TESSERA_DB);
  const { pool, seen } = watchedPool(60);
  const runner = new JobRunner(store, t.config.TESSERA_DB, pool, {
    owner: "solo",
    leaseMs: 5000,
    pollMs: 5,
    timeoutMs: 10_000,
    maxAttempts: 3,
    concurrency: 1,
  });
  runner.start();
  try {
    // a job run to its end first (its end polls again at once, beside the regular poll), then two queued
    // together, three times over
    for (let round = 0; round < 3; round++) {
      const first = await q.create(fields);
      await settled(q, [first._id]);
      const two = [await q.create(fields), await q.create(fields)];
      await settled(q, two.map((j) => j._id));
    }
  } finally {
    await runner.stop();
    await runner.idle();
  }
  assert.equal(seen.runs, 9);
  assert.equal(seen.most, 1, "two jobs computed at once on a runner with concurrency 1");
});

storeTest("job queue: a claim with a limit counts the running jobs this owner holds", async (t) => {
  const fields = await meanJob(t);
  const q = new JobQueue(t.store, t.config.TESSERA_DB);
  await q.create(fields);
  await q.create(fields);
  const a = await q.claim("solo", 5000, 3, { limit: 1 });
  assert.equal(a?.lease_owner, "solo");
  // another runner object of the same instance (the same owner) gets nothing while one job runs
  assert.equal(await q.claim("solo", 5000, 3, { limit: 1 }), null);
  // another instance does
  assert.equal((await q.claim("other", 5000, 3, { limit: 1 }))?.lease_owner, "other");
  assert.equal(await q.succeed(a!, {}, { attempt: 1, pages: 0, total: 0 }), true);
  const third = await q.create(fields);
  assert.equal((await q.claim("solo", 5000, 3, { limit: 1 }))?._id, third._id);
});
