/**
 * `deno run --allow-all bench/cleaning_bench.ts [--runs N] [--rows N]`: the cleaning methods the issue
 * names on 100,000 rows × 10 columns (goal: under 10 s each), timed two ways:
 *   core — the pure function on one thread (data already in typed columns);
 *   job  — a whole job through the runner on the embedded store: stream 100,000 documents, compute in
 *          the worker pool, write the result pages, mark the job done (the data import is not timed).
 * Data: 10 columns from 3 latent factors plus noise (sd 0.3), 1 % of cells removed for the imputation.
 * Prints the best and the median of N runs (default 3) after one warm-up.
 */
import { Rng } from "../core/random.ts";
import { imputeKnn } from "../core/cleaning/impute_tabular.ts";
import { imputeIterative } from "../core/cleaning/iterative.ts";
import { detectIsolationForest } from "../core/cleaning/isolation_forest.ts";
import { KvStore } from "../store/kv.ts";
import { importRecords } from "../services/datasets/import.ts";
import { JobQueue } from "../services/cleaning/job_queue.ts";
import { JobRunner } from "../services/cleaning/job_runner.ts";
import { WorkerPool } from "../workers/pool.ts";
import { bestAndMedian } from "./timing.ts";

const arg = (name: string, fallback: number) => {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Number(Deno.args[i + 1]) : fallback;
};
const RUNS = arg("--runs", 3);
const N = arg("--rows", 100_000);
const D = 10;

/** The factor table, with 1 % of cells missing in `damaged`. */
function data() {
  const rng = new Rng(2026);
  const load = Array.from({ length: D }, () => [rng.normal(), rng.normal(), rng.normal()]);
  const full = Array.from({ length: D }, () => new Float64Array(N));
  for (let i = 0; i < N; i++) {
    const z = [rng.normal(), rng.normal(), rng.normal()];
    for (let j = 0; j < D; j++) {
      full[j][i] = load[j][0] * z[0] + load[j][1] * z[1] + load[j][2] * z[2] + 0.3 * rng.normal();
    }
  }
  const damaged = full.map((c) => c.map((v) => (rng.next() < 0.01 ? NaN : v)));
  return { full, damaged };
}

async function time(label: string, fn: () => unknown | Promise<unknown>) {
  const { best, median } = await bestAndMedian(fn, RUNS);
  const s = (x: number) => `${(x / 1000).toFixed(2)} s`;
  console.log(`${label.padEnd(44)} best ${s(best)}  median ${s(median)}`);
}

const { full, damaged } = data();
const named = damaged.map((values, j) => ({ name: `c${j}`, values }));
console.log(`${N} rows × ${D} columns, ${RUNS} runs after a warm-up`);
await time("core isolation_forest (100 trees, ψ = 256)", () => detectIsolationForest(full, {}));
await time("core knn imputation (k = 5, standardized)", () => imputeKnn(named, 5));
await time("core iterative imputation (max_iter = 10)", () => imputeIterative(named, 10));

/** The damaged table as documents (missing cells as null). */
async function* rows() {
  for (let i = 0; i < N; i++) {
    const row: Record<string, number | null> = {};
    for (let j = 0; j < D; j++) row[`c${j}`] = Number.isNaN(damaged[j][i]) ? null : damaged[j][i];
    yield row;
  }
}

// Whole jobs through the runner on the embedded store.
const dir = await Deno.makeTempDir({ prefix: "tessera-bench-" });
const store = await KvStore.open(`${dir}/bench.kv`);
const pool = new WorkerPool(new URL("../workers/worker.ts", import.meta.url), 2);
try {
  await importRecords(store, "tessera", { db: "bench", collection: "table" }, rows());
  const queue = new JobQueue(store, "tessera");
  const runner = new JobRunner(store, "tessera", pool, {
    leaseMs: 30_000,
    pollMs: 1000,
    timeoutMs: 600_000,
    maxAttempts: 3,
    concurrency: 1,
  });
  const job = (task: "impute" | "detect", method: string) => async () => {
    await queue.create({
      task,
      dtype: "tabular",
      method,
      params: task === "detect" ? { contamination: 0.1 } : {},
      date_col: null,
      data: "table",
      database: "bench",
      collection: "table",
      columns: Array.from({ length: D }, (_, j) => `c${j}`),
      rows: N,
      created_by: "bench",
      client_id: null,
    });
    const id = await runner.runOnce();
    const done = await queue.get(id!);
    if (done?.status !== "succeeded") throw new Error(`job ${id}: ${JSON.stringify(done?.error)}`);
  };
  await time("job isolation_forest (KV, 100,000 result rows)", job("detect", "isolation_forest"));
  await time("job knn imputation (KV, ~10,000 filled cells)", job("impute", "knn"));
} finally {
  pool.close();
  await store.close();
  await Deno.remove(dir, { recursive: true });
}
