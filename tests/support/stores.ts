/**
 * HTTP tests over both stores: `storeTest` registers one test per backend, running the same body on the
 * embedded store (a temp KV file) and, when TEST_MONGO_URL is set (`deno task test` sets it), on MongoDB
 * with databases of its own that it drops afterwards. Without TEST_MONGO_URL the Mongo run is ignored.
 */
import { MongoClient } from "mongodb";
import { createApp } from "../../app.ts";
import { type Config, loadConfig } from "../../config.ts";
import { KvStore } from "../../store/kv.ts";
import { MongoStore } from "../../store/mongo.ts";
import type { Store } from "../../store/store.ts";
import { setupAuth } from "../../routes/auth/auth.index.ts";
import { servicePool } from "./pools.ts";
import type { WorkerPool } from "../../workers/pool.ts";
import { prunesSettled } from "../../services/spatial/run_pruning.ts";

const MONGO_URL = Deno.env.get("TEST_MONGO_URL");

export interface StoreApp {
  app: ReturnType<typeof createApp>;
  store: Store;
  config: Config;
  /** A database name for the test's datasets, unique to this run. */
  db: string;
  /** The app's worker pool. */
  pool: WorkerPool;
}

export interface StoreTestOptions {
  /** Configuration variables over the defaults (LOG_LEVEL=silent, AUTH_MODE=off). */
  env?: Record<string, string>;
  /** AUTH_MODE=local with user alice:wonderland and the realm's token endpoint mounted. */
  auth?: boolean;
  /** Registers both tests ignored (a test that needs what this run lacks, such as workers). */
  ignore?: boolean;
  /** The workers of the app's pool (default 1). */
  poolSize?: number;
}

const unique = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;

async function build(store: Store, opts: StoreTestOptions, names: { tessera: string; db: string }) {
  const auth = opts.auth ? { AUTH_MODE: "local", TESSERA_USERS: "alice:wonderland" } : {};
  const config = loadConfig({
    LOG_LEVEL: "silent",
    AUTH_MODE: "off",
    TESSERA_DB: names.tessera,
    ...auth,
    ...opts.env,
  });
  const { verifier, routes, realm } = opts.auth
    ? await setupAuth(config, store)
    : { verifier: null, routes: [], realm: null };
  // Workers start lazily: a pool nobody asks for costs nothing, and close() is still called.
  const pool = servicePool(opts.poolSize ?? 1);
  const app = createApp({ config, store, pool, verifier, realm, extraRoutes: routes });
  return { app, store, config, db: names.db, pool };
}

/** Waits for the work a test's requests left running after their answers, then stops the pool. */
async function settle(t: { pool: { close(): void } }): Promise<void> {
  await prunesSettled();
  t.pool.close();
}

/** Registers `name [kv]` and `name [mongo]`, each running `fn` on a fresh app over that store. */
export function storeTest(
  name: string,
  fn: (t: StoreApp) => Promise<void>,
  opts: StoreTestOptions = {},
): void {
  Deno.test({
    name: `${name} [kv]`,
    ignore: opts.ignore,
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "tessera-test-" });
      const store = await KvStore.open(`${dir}/t.kv`);
      try {
        const t = await build(store, opts, { tessera: "tessera", db: "testdb" });
        await fn(t).finally(() => settle(t));
      } finally {
        await store.close();
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
  Deno.test({
    name: `${name} [mongo]`,
    ignore: opts.ignore || !MONGO_URL,
    async fn() {
      const id = unique();
      const names = { tessera: `tessera_t_${id}`, db: `data_t_${id}` };
      const store = await MongoStore.connect(MONGO_URL!);
      try {
        const t = await build(store, opts, names);
        await fn(t).finally(() => settle(t));
      } finally {
        await store.close();
        const client = new MongoClient(MONGO_URL!);
        try {
          for (const db of Object.values(names)) await client.db(db).dropDatabase();
        } finally {
          await client.close();
        }
      }
    },
  });
}

/** JSON request options, with a bearer token when given. */
export function jsonRequest(method: string, body: unknown, token?: string): RequestInit {
  return {
    method,
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
  };
}

/** Imports CSV text as dataset `collection` of database `db`; asserts it worked. */
export async function importCsv(t: StoreApp, collection: string, csv: string): Promise<void> {
  const res = await t.app.request(`/api/datasets/${t.db}/${collection}`, {
    method: "POST",
    body: csv,
    headers: { "content-type": "text/csv" },
  });
  if (res.status !== 200) throw new Error(`import failed: ${res.status} ${await res.text()}`);
}
