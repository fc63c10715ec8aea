/**
 * Feature importance on 100,000 rows × 20 features (binary target), all four models, 10-fold CV,
 * through the worker pool as the endpoint runs it (one worker per core), from the typed columns on:
 * loading from the store is not included (see BENCHMARKS.md for the endpoint end to end).
 *
 *   deno run -A bench/feature_importance_bench.ts [rows] [workers]
 *
 * Prints the wall time and the CPU time of the whole process (every worker: other programs on the
 * machine stretch the wall time, hardly the CPU time), and per model the summed job time (of its 10 folds and, for the best model,
 * the hold-out fit), the mean CV accuracy and the hold-out accuracy of the best.
 */
import process from "node:process";
import { WorkerPool } from "../workers/pool.ts";
import { featureImportanceOnPool } from "../services/valuation/on_pool.ts";
import { MODEL_NAMES } from "../core/learn/models.ts";
import type { Frame } from "../core/stats/frame.ts";
import { sharedAlloc } from "../core/memory.ts";
import { importanceTable } from "./valuation_data.ts";

const rows = Number(Deno.args[0] ?? 100_000);
const workers = Number(Deno.args[1] ?? navigator.hardwareConcurrency);
const { names, columns, y } = importanceTable(rows);
const shared = (a: Float64Array) => {
  const out = new Float64Array(sharedAlloc(a.byteLength));
  out.set(a);
  return out;
};
const frame: Frame = {
  rows,
  columns: [
    ...names.map((name, j) => ({
      name,
      kind: "numeric" as const,
      values: shared(columns[j]),
      boolean: false,
    })),
    { name: "label", kind: "numeric", values: shared(Float64Array.from(y)), boolean: false },
  ],
};
const pool = new WorkerPool(new URL("../workers/worker.ts", import.meta.url), workers);
try {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const run = await featureImportanceOnPool(pool, frame, {
    trainSize: 0.7,
    folds: 10,
    seed: 0,
    maxCategories: 25,
  }, MODEL_NAMES);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const c = run.comparison;
  console.log(
    `${rows} rows × ${names.length} features, ${workers} workers: ${wall.toFixed(1)} s wall, ` +
      `${
        ((cpu.user + cpu.system) / 1e6).toFixed(1)
      } s CPU (all threads; the same under load, unlike wall time)`,
  );
  for (const m of MODEL_NAMES) {
    const jobs = c.jobs.filter((j) => j.model === m);
    const seconds = jobs.reduce((s, j) => s + j.seconds, 0);
    const i = c.models.indexOf(m);
    console.log(
      `  ${m}: ${seconds.toFixed(1)} s in ${jobs.length} jobs, CV accuracy ${c.accuracies[i].toFixed(4)}`,
    );
  }
  console.log(`  best ${c.best}, hold-out accuracy ${c.holdoutAccuracy.toFixed(4)}`);
  console.log(
    `  top features ${
      c.importance.slice(0, 5).map((f) => `${f.feature} ${f.importance.toFixed(3)}`).join(", ")
    }`,
  );
} finally {
  pool.close();
}
