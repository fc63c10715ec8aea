/** A Tessera app over a fresh embedded store in a temp dir, for tests that go through `app.request()`. */
import { createApp } from "../../app.ts";
import { type Config, loadConfig } from "../../config.ts";
import { KvStore } from "../../store/kv.ts";
import type { Deps } from "../../routes/http/env.ts";
import { servicePool } from "./pools.ts";
import { setupAuth } from "../../routes/auth/auth.index.ts";
import { prunesSettled } from "../../services/spatial/run_pruning.ts";

export interface TestApp {
  app: ReturnType<typeof createApp>;
  store: KvStore;
  config: Config;
  close(): Promise<void>;
}

/**
 * The app over a KV store, in a new temp dir unless `kvPath` names a file (kept at close, so a second
 * app can open it again); `deps(config, store)` adds what a variant needs.
 */
async function build(
  config: Config,
  poolSize: number,
  deps: (config: Config, store: KvStore) => Promise<Partial<Deps>>,
  kvPath?: string,
): Promise<TestApp> {
  const dir = kvPath ? undefined : await Deno.makeTempDir({ prefix: "tessera-test-" });
  const store = await KvStore.open(kvPath ?? `${dir}/t.kv`);
  const pool = servicePool(poolSize);
  const app = createApp({ config, store, pool, verifier: null, ...await deps(config, store) });
  return {
    app,
    store,
    config,
    async close() {
      await prunesSettled(); // the runs' pruning, left running after an answer
      pool.close();
      await store.close();
      if (dir) await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Builds the app with auth off unless `deps` brings a verifier; env overrides config variables. */
export function testApp(env: Record<string, string> = {}, deps: Partial<Deps> = {}): Promise<TestApp> {
  const config = loadConfig({ LOG_LEVEL: "silent", AUTH_MODE: "off", ...env });
  return build(config, 2, () => Promise.resolve(deps));
}

/** Where `authTestApp` keeps its store, whether it runs as `--dev`, and routes it adds. */
export interface AuthAppOptions {
  /** A KV file to open (and keep) instead of a fresh one: the signing key survives a restart. */
  kvPath?: string;
  dev?: boolean;
  extraRoutes?: Deps["extraRoutes"];
}

/**
 * Like `testApp` but with auth as env says, by default AUTH_MODE=local (user alice:wonderland): tokens
 * required, the realm mounted.
 */
export function authTestApp(env: Record<string, string> = {}, opts: AuthAppOptions = {}): Promise<TestApp> {
  const config = loadConfig({
    LOG_LEVEL: "silent",
    AUTH_MODE: "local",
    TESSERA_USERS: "alice:wonderland",
    ...env,
  }, { dev: opts.dev });
  return build(config, 1, async (config, store) => {
    const { verifier, routes, realm } = await setupAuth(config, store);
    return { verifier, realm, extraRoutes: [...routes, ...opts.extraRoutes ?? []] };
  }, opts.kvPath);
}

type ConsoleMethod = "log" | "warn" | "error";

/** Runs fn while recording every line written with the given console methods (all three by default). */
export async function captureConsole(
  fn: () => Promise<void>,
  methods: ConsoleMethod[] = ["log", "warn", "error"],
): Promise<string[]> {
  const lines: string[] = [];
  const saved = { log: console.log, warn: console.warn, error: console.error };
  const record = (...args: unknown[]) => void lines.push(args.join(" "));
  for (const m of methods) console[m] = record;
  try {
    await fn();
  } finally {
    Object.assign(console, saved);
  }
  return lines;
}

/** JSON request options. */
export function jsonBody(method: string, body: unknown): RequestInit {
  return { method, body: JSON.stringify(body), headers: { "content-type": "application/json" } };
}
