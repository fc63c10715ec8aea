/**
 * The dataset import end to end over HTTP, with the default limits: generates N rows × 5 columns (lat,
 * lon, y_true, y_pred, region_ids: a JSON list of 107 ints on average; bench/import_data.ts), starts
 * Tessera as `deno task dev` starts it (on a throwaway KV file and a free loopback port, no other variable
 * set), gets a token from the local issuer (demo:demo, client tessera), and streams the file to
 * `POST /api/datasets/bench/points?mode=create` with curl (`-T`: streamed from disk, its Content-Length
 * declared, as clients send files; `--client fetch`: Deno's fetch with a streamed, chunked body, which
 * costs Deno's own server far more, see curlUpload). Meanwhile a Web Worker GETs /healthz every 10 ms; the
 * largest of those latencies is how long the service's event loop was held. Prints the import's seconds,
 * the probe's max/p99 latency and the service's peak RSS (VmHWM) and CPU time. Traffic goes to 127.0.0.1
 * only; every loop ends by itself.
 *
 *   deno run -A bench/import_bench.ts [--rows 1000000] [--format ndjson|json|csv] [--file PATH]
 *     [--client curl|fetch] [--settle SECONDS] [--store-only]
 *
 * `--file`: the upload is kept at PATH and reused when it exists (generating 1M rows takes ~15 s).
 * `--settle`: seconds the service is left alone once ready, before the import (3, as bench/http_end_to_end.ts
 * idles before its steps); `--settle 0` measures an import sent right at readiness (the service serves once
 * its workers are warm, so none meets their warm-up).
 * `--store-only`: no service, no upload: the time `KvStore.insertMany` alone takes for the same rows.
 * Variables set for this command (IMPORT_BODY_LIMIT_MB, ...) reach the service too.
 */
import { parseArgs } from "node:util";
import { type BenchFormat, benchPieces, writeBenchFile } from "./import_data.ts";
import { KvStore } from "../store/kv.ts";
import { curlUpload, demoToken } from "./upload.ts";
import { devTaskArgs, ROOT } from "./dev_task.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    rows: { type: "string", default: "1000000" },
    format: { type: "string", default: "ndjson" },
    file: { type: "string" },
    client: { type: "string", default: "curl" },
    settle: { type: "string", default: "3" },
    "store-only": { type: "boolean", default: false },
  },
});
const rows = Number(values.rows);
const format = values.format as BenchFormat;
if (
  !["ndjson", "json", "csv"].includes(format) || !(rows > 0) || !["curl", "fetch"].includes(values.client) ||
  !(Number(values.settle) >= 0)
) {
  console.error(
    "usage: deno run -A bench/import_bench.ts [--rows N] [--format ndjson|json|csv] [--file PATH] " +
      "[--client curl|fetch] [--settle SECONDS]",
  );
  Deno.exit(2);
}
const CONTENT_TYPE = { ndjson: "application/x-ndjson", json: "application/json", csv: "text/csv" };

/**
 * `--store-only`: what the embedded store alone takes for these documents, the floor under the import:
 * the same rows, parsed beforehand, written 1,000 a call by `KvStore.insertMany` into a fresh KV file
 * (no HTTP, no parsing, no journal in the time).
 */
async function storeOnly(): Promise<void> {
  const store = await KvStore.open(`${dir}/store-only.kv`);
  const ref = { db: "bench", collection: "points" };
  let ms = 0, written = 0;
  try {
    for (const piece of benchPieces(rows, "ndjson")) {
      const docs = piece.split("\n").filter((l) => l).map((l) => JSON.parse(l));
      for (let i = 0; i < docs.length; i += 1000) {
        const t0 = performance.now();
        await store.insertMany(ref, docs.slice(i, i + 1000));
        ms += performance.now() - t0;
      }
      written += docs.length;
    }
    console.log(
      `store only: ${written} documents written by KvStore.insertMany in ${(ms / 1000).toFixed(1)} s`,
    );
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

/** A free loopback port, from a listener the kernel gives one to. */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = l.addr as Deno.NetAddr;
  l.close();
  return port;
}

/** A process's peak and current resident memory (MB) and CPU seconds (user + system), from /proc. */
async function processStats(pid: number) {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  const stat = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1].split(" ");
  return { hwmMb: kb("VmHWM") / 1024, rssMb: kb("VmRSS") / 1024, cpuS: (+stat[11] + +stat[12]) / 100 };
}

/** The /healthz probe: a module worker with its own event loop, so the bench's own work never delays it. */
const PROBE = `
let stop = false;
self.onmessage = async (e) => {
  if (e.data === "stop") { stop = true; return; }
  const lat = [];
  let failed = 0;
  while (!stop) {
    const t0 = performance.now();
    try {
      const res = await fetch(e.data);
      await res.arrayBuffer();
      if (res.ok) lat.push(performance.now() - t0); else failed++;
    } catch { failed++; }
    const wait = 10 - (performance.now() - t0);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  self.postMessage({ lat, failed });
};`;

const dir = await Deno.makeTempDir({ prefix: "tessera-import-bench-" });
if (values["store-only"]) {
  await storeOnly();
  Deno.exit(0);
}
const file = values.file ?? `${dir}/upload.${format}`;
let bytes: number;
try {
  bytes = (await Deno.stat(file)).size;
  console.log(`upload: ${file} (kept), ${(bytes / 1e6).toFixed(1)} MB`);
} catch {
  const t0 = performance.now();
  bytes = await writeBenchFile(file, rows, format);
  console.log(
    `upload: ${rows} rows × 5 columns as ${format}, ${(bytes / 1e6).toFixed(1)} MB ` +
      `(written in ${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
}

const port = freePort();
const base = `http://127.0.0.1:${port}`;
const server = new Deno.Command(Deno.execPath(), {
  args: devTaskArgs(),
  cwd: ROOT,
  env: { PORT: String(port), KV_PATH: `${dir}/import.kv`, LOG_LEVEL: "warn" },
  stdout: "null",
  stderr: "inherit",
}).spawn();

try {
  const deadline = Date.now() + 180_000;
  while (true) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error("the service did not become ready in 180 s");
    await new Promise((r) => setTimeout(r, 250));
  }
  const access_token = await demoToken(base);
  await new Promise((r) => setTimeout(r, Number(values.settle) * 1000));
  const before = await processStats(server.pid);

  const probe = new Worker(URL.createObjectURL(new Blob([PROBE], { type: "text/javascript" })), {
    type: "module",
  });
  const probed = new Promise<{ lat: number[]; failed: number }>((resolve) => {
    probe.onmessage = (e) => resolve(e.data);
  });
  probe.postMessage(`${base}/healthz`);
  await new Promise((r) => setTimeout(r, 300)); // the probe's connection is open and warm

  const url = `${base}/api/datasets/bench/points?mode=create`;
  const headers = { authorization: `Bearer ${access_token}`, "content-type": CONTENT_TYPE[format] };
  const t0 = performance.now();
  const res = values.client === "curl" ? await curlUpload(url, file, headers) : await fetch(url, {
    method: "POST",
    body: (await Deno.open(file)).readable,
    headers,
  });
  const answer = await res.json();
  const seconds = (performance.now() - t0) / 1000;
  probe.postMessage("stop");
  const { lat, failed } = await probed;
  probe.terminate();
  const after = await processStats(server.pid);

  lat.sort((a, b) => a - b);
  const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  console.log(
    `import: ${res.status} in ${seconds.toFixed(1)} s (${(bytes / 1e6 / seconds).toFixed(1)} MB/s)`,
  );
  if (!res.ok) console.log(`  answer: ${JSON.stringify(answer)}`);
  else {console.log(
      `  rows ${answer.rows}, columns ${
        answer.columns.map((c: { name: string; type: string }) => `${c.name}:${c.type}`).join(" ")
      }`,
    );}
  console.log(
    `/healthz every 10 ms during the import: ${lat.length} answers, ${failed} failed; ` +
      `max ${q(1).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, p50 ${q(0.5).toFixed(1)} ms`,
  );
  console.log(
    `service: peak RSS (VmHWM) ${after.hwmMb.toFixed(0)} MB (${
      before.hwmMb.toFixed(0)
    } MB before the import), ` +
      `RSS now ${after.rssMb.toFixed(0)} MB, CPU during the import ${
        (after.cpuS - before.cpuS).toFixed(1)
      } s`,
  );
  if (!res.ok || answer.rows !== rows) Deno.exitCode = 1;
} finally {
  server.kill("SIGTERM");
  await server.status;
  await Deno.remove(dir, { recursive: true });
}
