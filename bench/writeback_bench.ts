/**
 * A spatial write-back and its undo, through the app's HTTP handler (`app.request`, no socket) on the
 * embedded store: N documents, a write-back of a new field listing every one (`preds`), a second one
 * replacing its values, and the undo of each (newest first). Prints seconds per step and the process's
 * peak RSS. Run it at an older commit (no `writeback_id`: no undo) for the reference.
 *
 *   deno run -A bench/writeback_bench.ts [--rows 200000]
 */
import { parseArgs } from "node:util";
import { createApp } from "../app.ts";
import { loadConfig } from "../config.ts";
import { KvStore } from "../store/kv.ts";
import { createWorkerPool } from "../workers/pool.ts";

const { values } = parseArgs({ args: Deno.args, options: { rows: { type: "string", default: "200000" } } });
const rows = Number(values.rows);
const dir = await Deno.makeTempDir({ prefix: "tessera-wb-bench-" });
const store = await KvStore.open(`${dir}/b.kv`);
const pool = createWorkerPool(0);
const config = loadConfig({ LOG_LEVEL: "silent", AUTH_MODE: "off" });
const app = createApp({ config, store, pool, verifier: null });
const json = (method: string, body?: unknown) => ({
  method,
  headers: { "content-type": "application/json" },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});
const ids: string[] = [];
for (let i = 0; i < rows; i += 10_000) {
  const part = Array.from(
    { length: Math.min(10_000, rows - i) },
    (_, j) => ({ n: i + j, y_pred: (i + j) % 2 }),
  );
  ids.push(...await store.insertMany({ db: "bench", collection: "preds" }, part));
}
await app.request(
  "/api/tasks/documents",
  json("POST", { database_name: "bench", data_collection_name: "preds" }),
);
const base = "/api/spatial-hitl/task/preds/mitigate/writeback";
const timed = async (what: string, path: string, body?: unknown) => {
  const t = performance.now();
  const res = await app.request(path, json("POST", body));
  const answer = await res.json();
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
  console.log(`${what}: ${((performance.now() - t) / 1000).toFixed(2)} s`);
  return answer;
};
const write = (f: (i: number) => number) => ({
  new_field: "fair",
  preds: ids.map((doc_id, i) => ({ doc_id, y_pred: f(i) })),
});
const first = await timed(
  `write-back, new field, ${rows} documents`,
  base,
  write((i) => i % 3 === 0 ? 1 : 0),
);
const second = await timed(`write-back, replacing its values`, base, write((i) => i % 3 === 0 ? 0 : 1));
if (second.writeback_id) {
  await timed("undo of the second (previous values back)", `${base}/${second.writeback_id}/undo`);
  await timed("undo of the first (field removed)", `${base}/${first.writeback_id}/undo`);
}
const status = await Deno.readTextFile("/proc/self/status");
console.log(`peak RSS: ${Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024)} MB`);
pool.close();
await store.close();
await Deno.remove(dir, { recursive: true });
