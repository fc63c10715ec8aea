/**
 * Reads config, opens the store, builds the app and serves it. `deno task dev` (flag `--dev`) also
 * seeds an empty embedded store with demo data. On Deno Deploy the default export serves.
 */
import { loadConfig } from "./config.ts";
import { createApp } from "./app.ts";
import { KvStore } from "./store/kv.ts";
import type { Store } from "./store/store.ts";

const dev = Deno.args.includes("--dev");
const config = loadConfig(Deno.env.toObject(), { dev });

async function openStore(): Promise<Store> {
  if (config.MONGO_URL) {
    const { MongoStore } = await import("./store/mongo.ts");
    return await MongoStore.connect(config.MONGO_URL);
  }
  return await KvStore.open(Deno.env.get("DENO_DEPLOYMENT_ID") ? undefined : config.KV_PATH);
}

const store = await openStore();
const app = createApp({ config, store, verifier: null });

export default { fetch: app.fetch };

if (import.meta.main) {
  const ac = new AbortController();
  const server = Deno.serve({ port: config.PORT, hostname: config.HOST, signal: ac.signal }, app.fetch);
  const stop = async () => {
    ac.abort();
    await server.finished;
    await store.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
