/**
 * Correlations on 1,000,000 rows × 20 columns, all three methods, as the endpoint computes them
 * (both steps spread over the worker pool, columns in shared memory) and in one thread per method;
 * then Kendall's tau-b by Knight's O(n log n) against the O(n²) definition on 20,000 rows.
 *
 *   deno run -A bench/correlation_bench.ts [rows] [columns] [workers]
 *   deno run -A bench/correlation_bench.ts --export /tmp/corr.f64   # the columns for correlation_reference.py
 *
 * Loading from the store is not included (see BENCHMARKS.md for the endpoint end to end).
 */
import process from "node:process";
import { WorkerPool } from "../workers/pool.ts";
import { correlateOnPool } from "../services/valuation/on_pool.ts";
import {
  correlationMatrices,
  type Method,
  pairCoefficients,
  prepareColumn,
} from "../core/stats/correlation.ts";
import { sharedAlloc } from "../core/memory.ts";
import { correlationColumns } from "./valuation_data.ts";
import { kendallQuadratic } from "../tests/support/kendall_naive.ts";

if (Deno.args[0] === "--export") {
  const cols = correlationColumns(1_000_000, 20);
  const all = new Float64Array(cols.length * cols[0].length);
  cols.forEach((c, j) => all.set(c, j * c.length));
  Deno.writeFileSync(Deno.args[1], new Uint8Array(all.buffer));
  Deno.exit(0);
}
const rows = Number(Deno.args[0] ?? 1_000_000);
const k = Number(Deno.args[1] ?? 20);
const workers = Number(Deno.args[2] ?? navigator.hardwareConcurrency);
const ALL: Method[] = ["pearson", "spearman", "kendall"];
const seconds = (t0: number) => ((performance.now() - t0) / 1000).toFixed(2);

const columns = correlationColumns(rows, k).map((c) => {
  const s = new Float64Array(sharedAlloc(c.byteLength));
  s.set(c);
  return s;
});
const pool = new WorkerPool(new URL("../workers/worker.ts", import.meta.url), workers);
try {
  await correlateOnPool(pool, columns.slice(0, 2).map((c) => c.subarray(0, 1000)), ALL); // start the workers
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const { matrices: m } = await correlateOnPool(pool, columns, ALL);
  const cpu = process.cpuUsage(cpu0);
  console.log(
    `${rows} rows × ${k} columns, all three methods, ${workers} workers: ${seconds(t0)} s wall, ` +
      `${((cpu.user + cpu.system) / 1e6).toFixed(2)} s CPU (all threads)`,
  );
  for (const method of ALL) console.log(`  ${method}: c0~c1 ${m[method]![1]}  c0~c3 ${m[method]![3]}`);
} finally {
  pool.close();
}
for (const method of ALL) {
  const t0 = performance.now();
  const prepared = columns.map((c) => prepareColumn(c, [method]));
  const t1 = performance.now();
  pairCoefficients(prepared, [method]);
  console.log(
    `  one thread, ${method}: ${seconds(t0)} s (${((t1 - t0) / 1000).toFixed(2)} s ranking columns)`,
  );
}

const n = 20_000;
const cols = correlationColumns(n, 5, 7);
const [x, y] = [cols[0], cols[4]]; // both continuous, no gaps
correlationMatrices([x.subarray(0, 2000), y.subarray(0, 2000)], ["kendall"]); // warm both up
kendallQuadratic(x.subarray(0, 2000), y.subarray(0, 2000));
// Knight's time is the best of five (a few milliseconds, so one run is at the mercy of the VM).
let fast = NaN, tFast = Infinity, t0 = 0;
for (let rep = 0; rep < 5; rep++) {
  t0 = performance.now();
  fast = correlationMatrices([x, y], ["kendall"]).kendall![1];
  tFast = Math.min(tFast, performance.now() - t0);
}
t0 = performance.now();
const slow = kendallQuadratic(x, y);
const tSlow = performance.now() - t0;
console.log(
  `Kendall on ${n} rows: Knight ${tFast.toFixed(1)} ms, O(n²) ${tSlow.toFixed(0)} ms, ratio ${
    (tSlow / tFast).toFixed(0)
  }×` +
    ` (tau ${fast.toFixed(12)} vs ${slow.toFixed(12)})`,
);
