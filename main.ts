/**
 * Reads config, binds the port, opens the store, builds the app and serves it. `deno task dev` (flag
 * `--dev`) also seeds an empty embedded store with demo data. On Deno Deploy (DENO_DEPLOYMENT_ID set) the
 * platform picks the port and the store is its managed KV; the cleaning job runner starts there as everywhere.
 *
 * Start-up stops at the first problem with exit code 1 and one JSON line on stderr whose `msg` starts
 * "cannot start:": a bad variable, the demo credentials outside --dev, a port already in use (found before
 * any store work), a store that cannot be opened or reached. Until the app is built (seeding, the signing
 * key, the workers' warm-up), every request is answered 503 with Retry-After.
 */
import { type Config, demoCredentials, loadConfig } from "./config.ts";
import { createApp } from "./app.ts";
import { openStore } from "./store/open.ts";
import { type Store, StoreUnavailableError } from "./store/store.ts";
import { isEmpty, seedDemo } from "./services/demo/seed.ts";
import { setupAuth } from "./routes/auth/auth.index.ts";
import { createWorkerPool } from "./workers/pool.ts";
import { startJobRunner } from "./services/cleaning/job_runner.ts";
import { startImportRecovery } from "./services/datasets/import_recovery.ts";
import { sweepDecisions } from "./services/decisions/outbox.ts";
import { startWritebackRecovery } from "./services/mitigation/writeback_recovery.ts";
import { prunesSettled } from "./services/spatial/run_pruning.ts";
import { setLogLevel } from "./core/log.ts";

/** Ends start-up: one JSON line on stderr, whatever LOG_LEVEL says, and exit code 1. */
function cannotStart(why: string, fields: Record<string, unknown> = {}): never {
  const line = { time: new Date().toISOString(), level: "error", msg: `cannot start: ${why}`, ...fields };
  console.error(JSON.stringify(line));
  Deno.exit(1);
}

const dev = Deno.args.includes("--dev");
const onDeploy = Boolean(Deno.env.get("DENO_DEPLOYMENT_ID"));

let config: Config;
try {
  config = loadConfig(Deno.env.toObject(), { dev });
} catch (e) {
  cannotStart((e as Error).message);
}
setLogLevel(config.LOG_LEVEL); // createApp sets it too, but start-up logs before the app exists
const demo = dev ? null : demoCredentials(config);
if (demo) cannotStart(demo);

/** What serves requests once start-up is done; until then every request is a 503. */
let serve: ((req: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>) | null = null;
const notYet = (detail: string) =>
  Response.json({ detail }, {
    status: 503,
    headers: { connection: "close", "retry-after": "1", "x-request-id": crypto.randomUUID() },
  });

// Graceful stop: Deno's server.shutdown() cuts request bodies still being uploaded, so first drain:
// refuse new requests, wait for the in-flight ones (30 s at most), then shut down and close the store.
let inflight = 0;
let draining = false;
let server: Deno.HttpServer | null = null;
if (!onDeploy && import.meta.main) {
  // The port is bound before any store work: one already in use is found at once.
  try {
    server = Deno.serve(
      { port: config.PORT, hostname: config.HOST, onListen: () => {} },
      async (req, info) => {
        if (draining) return notYet("shutting down");
        if (!serve) return notYet("starting");
        inflight++;
        try {
          return await serve(req, info);
        } finally {
          inflight--;
        }
      },
    );
  } catch (e) {
    if (e instanceof Deno.errors.AddrInUse) {
      cannotStart(`port ${config.PORT} on ${config.HOST} is already in use`);
    }
    cannotStart(`cannot listen on ${config.HOST}:${config.PORT}: ${(e as Error).message}`);
  }
}

let store: Store;
try {
  store = await openStore(config, onDeploy);
} catch (e) {
  cannotStart(`the store cannot be opened: ${(e as Error).message}`);
}

/** Start-up reads the store (demo data, signing key): an unreachable one ends the process with one clear line. */
async function needingStore<T>(what: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (!(e instanceof StoreUnavailableError)) throw e;
    cannotStart(`${what} needs the store`, { error: e.message });
  }
}

// An import that died with an earlier process is rolled back (or completed) before anything is served;
// later, imports of instances that die are swept up once their lease runs out.
const importRecovery = await needingStore(
  "recovering unfinished imports",
  () => startImportRecovery(store, config.TESSERA_DB, config.IMPORT_LEASE_SECONDS * 1000),
);

// A write-back cut off by a dead process is rolled back, an undo cut off finished, before anything is served.
const writebackRecovery = await needingStore(
  "recovering unfinished write-backs",
  () => startWritebackRecovery(store, config.TESSERA_DB, config.IMPORT_LEASE_SECONDS * 1000),
);

// A decision whose log entry a dying process left in the decision's own document is logged now.
await needingStore("logging decisions a crash left unlogged", () => sweepDecisions(store, config.TESSERA_DB));

if (dev && await needingStore("seeding", () => isEmpty(store, config.TESSERA_DB))) {
  console.log("first start: seeding the demo datasets (a few seconds)...");
  console.log(`seeded ${JSON.stringify(await seedDemo(store, config.TESSERA_DB))}`);
}

const auth = await needingStore("the token signing key", () => setupAuth(config, store));
const pool = createWorkerPool(config.WORKERS);
// Every worker started and warmed (its maps and kernel ready) before anything is served: warm-ups on both
// cores left a request sent just after the start waiting for /healthz (BENCHMARKS.md). On
// Deno Deploy the isolate serves at once (it boots per request), and warms meanwhile where it can.
const warming = pool.warm("worker.warm");
if (!onDeploy) await warming;
const app = createApp({
  config,
  store,
  pool,
  verifier: auth.verifier,
  realm: auth.realm,
  extraRoutes: auth.routes,
});

/** How to get a token, printed at start so the README's first command is enough (secrets only with --dev). */
function banner(): string {
  const url = config.publicUrl;
  const lines = [
    `Tessera listening on ${url} (store: ${store.kind}, auth: ${config.AUTH_MODE})`,
    `  docs: ${url}/docs`,
  ];
  if (config.AUTH_MODE === "local") {
    const [client, secret] = [...config.TESSERA_CLIENTS][0] ?? ["<client>", "<secret>"];
    const first = config.dev ? [...config.users][0] : undefined;
    const [user, pass] = first ? [first[0], first[1].password] : ["<user>", "<password>"];
    lines.push(
      "  get a token:",
      `    curl -s -X POST ${url}/realms/${config.TESSERA_REALM}/protocol/openid-connect/token \\`,
      `      -d client_id=${client} -d client_secret=${
        config.dev ? secret : "<secret>"
      } -d username=${user} ` +
        `-d password=${pass} -d grant_type=password`,
    );
  }
  if (config.AUTH_MODE === "local" && config.dev) {
    const who = [...config.users].map(([name, u]) => `${name}:${u.password} (${u.role})`).join(", ");
    lines.push(`  users: ${who}`);
  }
  return lines.join("\n");
}

if (onDeploy) {
  Deno.serve(app.fetch);
  startJobRunner(config, store, pool); // the platform stops the isolate; leases hand its jobs on
} else if (server) {
  const listening = server;
  serve = (req, info) => app.fetch(req, info);
  console.log(banner());
  // The cleaning job runner (JOBS_ENABLED): claims queued jobs; on stop it hands running ones back.
  const runner = startJobRunner(config, store, pool);
  const stop = async () => {
    if (draining) return;
    draining = true;
    const deadline = Date.now() + 30_000;
    while (inflight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await listening.shutdown();
    await runner?.stop();
    importRecovery.stop();
    writebackRecovery.stop();
    await prunesSettled(); // the runs' pruning, left running after the last answers
    pool.close();
    await store.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
