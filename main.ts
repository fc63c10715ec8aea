/**
 * Reads config, opens the store, builds the app and serves it. `deno task dev` (flag `--dev`) also
 * seeds an empty embedded store with demo data. On Deno Deploy (DENO_DEPLOYMENT_ID set) the platform
 * picks the port and the store is its managed KV; the cleaning job runner starts there as everywhere.
 */
import { loadConfig } from "./config.ts";
import { createApp } from "./app.ts";
import { openStore } from "./store/open.ts";
import { StoreUnavailableError } from "./store/store.ts";
import { isEmpty, seedDemo } from "./services/demo/seed.ts";
import { setupAuth } from "./routes/auth/auth.index.ts";
import { createWorkerPool } from "./workers/pool.ts";
import { startJobRunner } from "./services/cleaning/job_runner.ts";
import { log, setLogLevel } from "./core/log.ts";

const dev = Deno.args.includes("--dev");
const onDeploy = Boolean(Deno.env.get("DENO_DEPLOYMENT_ID"));
const config = loadConfig(Deno.env.toObject(), { dev });
setLogLevel(config.LOG_LEVEL); // createApp sets it too, but start-up logs before the app exists
const store = await openStore(config, onDeploy);

/** Start-up reads the store (demo data, signing key): an unreachable one ends the process with one clear line. */
async function needingStore<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (!(e instanceof StoreUnavailableError)) throw e;
    log("error", `cannot start: ${what} needs the store`, { error: e.message });
    Deno.exit(1);
  }
}

if (dev && await needingStore("seeding", () => isEmpty(store, config.TESSERA_DB))) {
  console.log("first start: seeding the demo datasets (a few seconds)...");
  console.log(`seeded ${JSON.stringify(await seedDemo(store, config.TESSERA_DB))}`);
}

const auth = await needingStore("the token signing key", () => setupAuth(config, store));
const pool = createWorkerPool(config.WORKERS);
const app = createApp({
  config,
  store,
  pool,
  verifier: auth.verifier,
  realm: auth.realm,
  extraRoutes: auth.routes,
});

/** How to get a token, printed at start so the README's first command is enough. */
function banner(): string {
  const url = config.publicUrl;
  const lines = [
    `Tessera listening on ${url} (store: ${store.kind}, auth: ${config.AUTH_MODE})`,
    `  docs: ${url}/docs`,
  ];
  if (config.AUTH_MODE === "local") {
    const [client, secret] = [...config.TESSERA_CLIENTS][0] ?? ["<client>", "<secret>"];
    const [user, pass] = (config.dev && [...config.users][0]) || ["<user>", "<password>"];
    lines.push(
      "  get a token:",
      `    curl -s -X POST ${url}/realms/${config.TESSERA_REALM}/protocol/openid-connect/token \\`,
      `      -d client_id=${client} -d client_secret=${secret} -d username=${user} -d password=${pass} -d grant_type=password`,
    );
  }
  return lines.join("\n");
}

if (onDeploy) {
  Deno.serve(app.fetch);
  startJobRunner(config, store, pool); // the platform stops the isolate; leases hand its jobs on
} else if (import.meta.main) {
  // Graceful stop: Deno's server.shutdown() cuts request bodies still being uploaded, so first drain:
  // refuse new requests, wait for the in-flight ones (30 s at most), then shut down and close the store.
  let inflight = 0;
  let draining = false;
  const server = Deno.serve({
    port: config.PORT,
    hostname: config.HOST,
    onListen: () => console.log(banner()),
  }, async (req, info) => {
    if (draining) {
      return Response.json({ detail: "shutting down" }, {
        status: 503,
        headers: { connection: "close", "retry-after": "1", "x-request-id": crypto.randomUUID() },
      });
    }
    inflight++;
    try {
      return await app.fetch(req, info);
    } finally {
      inflight--;
    }
  });
  // The cleaning job runner (JOBS_ENABLED): claims queued jobs; on stop it hands running ones back.
  const runner = startJobRunner(config, store, pool);
  const stop = async () => {
    if (draining) return;
    draining = true;
    const deadline = Date.now() + 30_000;
    while (inflight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await server.shutdown();
    await runner?.stop();
    pool.close();
    await store.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
