/**
 * The toolkit's stateless face (issue 39) against the stored path, over HTTP end to end: the service started
 * as `deno task dev` starts it (a fresh KV file, a free port on 127.0.0.1), each step one request from its
 * first byte sent to its last received, the bodies sent by curl from files (bench/upload.ts says why):
 *
 *   toolkit audit     POST /api/spatial-bias/audit, the individuals in the body (n_worlds as --worlds)
 *   toolkit relabel   POST /api/spatial-bias/mitigate/relabel, its defaults
 *   import + task     the same individuals as NDJSON into a dataset, and its task document
 *   stored audit      POST /api/spatial-hitl/task/{name}/audit, cold (the first: it reads the rows), then warm
 *   stored relabel    POST .../mitigate/relabel, its defaults
 *
 * The case: bench/lar_like_case.ts's individuals (206,418 by default) with y_pred, y_true, lat, lon and
 * y_pred_prob; without region ids (k-means regions, k = max(5, ⌊√N / 2⌋)), or with --region-ids their ~107
 * overlapping squares each (a body of ~130 MB). A probe GETs /healthz every 10 ms during each step and keeps
 * the slowest answer (the goal: none over 50 ms). Both faces' SBI are printed, and must agree.
 *
 *   deno run -A bench/toolkit_api_bench.ts [--n 206418] [--worlds 400] [--region-ids] [--seed S]
 */
import { parseArgs } from "node:util";
import { larLikeCase } from "./lar_like_case.ts";
import { curlUpload, demoToken } from "./upload.ts";
import { devTaskArgs, ROOT } from "./dev_task.ts";

const { values: args } = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string" },
    worlds: { type: "string" },
    seed: { type: "string" },
    "region-ids": { type: "boolean" },
  },
});
const n = Number(args.n ?? 206_418), worlds = Number(args.worlds ?? 400), seed = Number(args.seed ?? 1);
const sec = (ms: number) => (ms / 1000).toFixed(2);

/** The individuals as JSON texts, one a line: what both faces read. */
function individualLines(): string[] {
  const c = larLikeCase({ n, seed });
  const ids = (t: number) => `[${c.tractIds.subarray(c.tractStart[t], c.tractStart[t + 1]).join(",")}]`;
  return Array.from({ length: c.n }, (_, i) => {
    const t = c.tractOf[i];
    const regions = args["region-ids"] ? `,"region_ids":${ids(t)}` : "";
    return `{"y_pred":${c.yPred[i]},"y_true":${c.yTrue[i]},"lat":${c.tractLat[t]},"lon":${c.tractLon[t]},` +
      `"y_pred_prob":${c.prob[i]}${regions}}`;
  });
}

/**
 * GETs /healthz every 10 ms until stopped, from a Web Worker: this script's own parse of a large answer
 * must not delay the probe's timing (it did: 70 ms "answers" while the service's loop was free). The slowest.
 */
function probe(base: string) {
  const src = `let run = true, max = 0;
onmessage = () => { run = false; };
(async () => {
  while (run) {
    const t0 = performance.now();
    await (await fetch(${JSON.stringify(`${base}/healthz`)})).arrayBuffer();
    max = Math.max(max, performance.now() - t0);
    await new Promise((r) => setTimeout(r, 10));
  }
  postMessage(max);
  close();
})();`;
  const url = URL.createObjectURL(new Blob([src], { type: "application/javascript" }));
  const worker = new Worker(url, { type: "module" });
  const result = new Promise<number>((r) => worker.onmessage = (e) => r(e.data));
  return async () => (worker.postMessage("stop"), await result);
}

const tmp = await Deno.makeTempDir({ prefix: "tessera-toolkit-bench-" });
const lines = individualLines();
const bodyFor = (settings: string) => `{${settings}"indiv_info":[${lines.join(",")}]}`;
await Deno.writeTextFile(`${tmp}/audit.json`, bodyFor(`"n_worlds":${worlds},`));
await Deno.writeTextFile(`${tmp}/relabel.json`, bodyFor(`"n_worlds":${worlds},`));
await Deno.writeTextFile(`${tmp}/rows.ndjson`, lines.join("\n") + "\n");
const bytes = (await Deno.stat(`${tmp}/audit.json`)).size;
lines.length = 0;

const port = (() => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const p = (l.addr as Deno.NetAddr).port;
  l.close();
  return p;
})();
const base = `http://127.0.0.1:${port}`;
const keep = ["PATH", "HOME", "USER", "LANG", "TMPDIR", "XDG_CACHE_HOME"];
const env = Object.fromEntries(Object.entries(Deno.env.toObject()).filter(([k]) => keep.includes(k)));
const service = new Deno.Command(Deno.execPath(), {
  args: devTaskArgs(),
  cwd: ROOT,
  clearEnv: true,
  env: { ...env, KV_PATH: `${tmp}/t.kv`, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
  stdin: "null",
  stdout: "null",
  stderr: "null",
}).spawn();

try {
  for (let ready = false; !ready;) {
    await new Promise((r) => setTimeout(r, 300));
    ready = await fetch(`${base}/readyz`).then((r) => r.arrayBuffer().then(() => r.ok)).catch(() => false);
  }
  const token = await demoToken(base);
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const rows: string[][] = [];
  const step = async (name: string, send: () => Promise<Response>) => {
    const stop = probe(base), t0 = performance.now();
    const res = await send();
    const answer = await res.json();
    const ms = performance.now() - t0, healthz = await stop();
    if (!res.ok) throw new Error(`${name}: ${res.status} ${JSON.stringify(answer).slice(0, 500)}`);
    const sbi = answer.sbi_score ?? answer.audit_before_mitigation?.sbi_score;
    rows.push([name, sec(ms), `${healthz.toFixed(0)} ms`, sbi === undefined ? "" : sbi.toPrecision(6)]);
    console.log(rows.at(-1)!.join("  "));
    return answer;
  };
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  console.log(`${n} individuals, ${(bytes / 1048576).toFixed(1)} MB of JSON, ${worlds} worlds`);
  await step(
    "toolkit audit",
    () => curlUpload(`${base}/api/spatial-bias/audit`, `${tmp}/audit.json`, headers),
  );
  await step(
    "toolkit audit, again",
    () => curlUpload(`${base}/api/spatial-bias/audit`, `${tmp}/audit.json`, headers),
  );
  await step(
    "toolkit relabel",
    () => curlUpload(`${base}/api/spatial-bias/mitigate/relabel`, `${tmp}/relabel.json`, headers),
  );
  const ndjson = { ...headers, "content-type": "application/x-ndjson" };
  await step(
    "import (NDJSON)",
    () => curlUpload(`${base}/api/datasets/bench/rows?mode=create`, `${tmp}/rows.ndjson`, ndjson),
  );
  await post("/api/tasks/documents", { database_name: "bench", data_collection_name: "rows" });
  await step("stored audit, cold", () => post("/api/spatial-hitl/task/rows/audit", { n_worlds: worlds }));
  await step(
    "stored audit, warm",
    () => post("/api/spatial-hitl/task/rows/audit", { n_worlds: worlds, seed: 7 }),
  );
  await step(
    "stored relabel",
    () => post("/api/spatial-hitl/task/rows/mitigate/relabel", { n_worlds: worlds }),
  );
  console.log("\n| step | seconds | healthz | SBI |\n| --- | --- | --- | --- |");
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
} finally {
  service.kill("SIGTERM");
  await service.status;
  await Deno.remove(tmp, { recursive: true });
}
