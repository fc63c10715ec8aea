/**
 * A Tessera job-runner process for the kill-and-resume test: the real JobRunner and WorkerPool (inline
 * with WORKERS=0) over the store named by STORE ("kv:<path>" or "mongo:<url>"), with TESSERA_DB,
 * LEASE_MS and OWNER. DELAY_MS holds each computation back that long, so the test can kill the process
 * while it is mid-job. Every runner event is printed as one JSON line on stdout.
 */
import { KvStore } from "../../store/kv.ts";
import { MongoStore } from "../../store/mongo.ts";
import type { Store } from "../../store/store.ts";
import { JobRunner, type TaskRunner } from "../../services/cleaning/job_runner.ts";
import { servicePool } from "./pools.ts";

const env = (k: string) => Deno.env.get(k) ?? "";
const spec = env("STORE");
const store: Store = spec.startsWith("mongo:")
  ? await MongoStore.connect(spec.slice(6))
  : await KvStore.open(spec.slice(3));
const workers = servicePool(1);
const delay = Number(env("DELAY_MS") || 0);
const pool: TaskRunner = {
  async run(task, payload, opts) {
    await new Promise((r) => setTimeout(r, delay));
    return await workers.run(task, payload, opts);
  },
};
const leaseMs = Number(env("LEASE_MS"));
const runner = new JobRunner(store, env("TESSERA_DB"), pool, {
  owner: env("OWNER"),
  leaseMs,
  pollMs: 100,
  timeoutMs: 60_000,
  maxAttempts: 3,
  concurrency: 1,
  onEvent: (event, job) => console.log(JSON.stringify({ event, job_id: job._id, at: Date.now() })),
});
runner.start();
console.log(JSON.stringify({ event: "started", owner: runner.owner, at: Date.now() }));
