/**
 * Load on the metadata endpoints, end to end over loopback: starts Tessera (as `deno task dev`: demo data, a
 * throwaway KV file, the rate limit raised), then for a bounded time keeps CONCURRENCY requests in flight
 * against each listed path with a bearer token, and prints requests per second, p50/p99/max latency and
 * the statuses seen. Traffic goes to 127.0.0.1 only, and the loop stops by itself.
 *
 *   deno run -A bench/load_listing.ts [SECONDS_PER_PATH=10] [CONCURRENCY=32]
 */
import { devTaskArgs, ROOT } from "./dev_task.ts";

const SECONDS = Number(Deno.args[0] ?? 10);
const CONCURRENCY = Number(Deno.args[1] ?? 32);
const PATHS = ["/healthz", "/api/tasks/documents", "/dataset", "/get-new-jobs/"];

/** A free loopback port, from a listener the kernel gives one to. */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = l.addr as Deno.NetAddr;
  l.close();
  return port;
}

const port = freePort();
const base = `http://127.0.0.1:${port}`;
const dir = await Deno.makeTempDir();
const server = new Deno.Command(Deno.execPath(), {
  args: devTaskArgs(),
  cwd: ROOT,
  env: {
    PORT: String(port),
    KV_PATH: `${dir}/load.kv`,
    LOG_LEVEL: "error",
    RATE_LIMIT_CAPACITY: "100000000",
    TOKEN_TTL_SECONDS: "3600",
  },
  stdout: "null",
  stderr: "inherit",
}).spawn();

try {
  const deadline = Date.now() + 120_000;
  while (true) {
    try {
      if ((await fetch(`${base}/readyz`)).ok) break;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) throw new Error("the service did not become ready in 120 s");
    await new Promise((r) => setTimeout(r, 250));
  }
  const form = new URLSearchParams({
    client_id: "tessera",
    client_secret: "tessera-secret",
    username: "demo",
    password: "demo",
    grant_type: "password",
  });
  const tokenRes = await fetch(`${base}/realms/tessera/protocol/openid-connect/token`, {
    method: "POST",
    body: form,
  });
  const { access_token } = await tokenRes.json();
  const headers = { authorization: `Bearer ${access_token}` };

  for (const path of PATHS) {
    const lat: number[] = [];
    const statuses = new Map<number, number>();
    const end = performance.now() + SECONDS * 1000;
    const worker = async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const res = await fetch(base + path, { headers });
        await res.arrayBuffer();
        lat.push(performance.now() - t0);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const secs = (performance.now() - t0) / 1000;
    lat.sort((a, b) => a - b);
    const q = (p: number) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(1);
    console.log(
      `${path.padEnd(24)} ${(lat.length / secs).toFixed(0).padStart(6)} req/s  p50 ${q(0.5)} ms  p99 ${
        q(0.99)
      } ms  max ${lat[lat.length - 1].toFixed(1)} ms  statuses ${
        JSON.stringify(Object.fromEntries(statuses))
      }`,
    );
  }
} finally {
  server.kill("SIGTERM");
  await server.status;
  await Deno.remove(dir, { recursive: true });
}
