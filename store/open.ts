/** Opens the store the configuration names: MongoDB when MONGO_URL is set, else the embedded KV. */
import type { Config } from "../config.ts";
import { KvStore } from "./kv.ts";
import type { Store, StoreLocation } from "./store.ts";

/** On Deno Deploy (DENO_DEPLOYMENT_ID set) the embedded store is the platform's managed KV. */
export async function openStore(config: Config, onDeploy = false): Promise<Store> {
  if (config.MONGO_URL) {
    const { MongoStore } = await import("./mongo.ts");
    return await MongoStore.connect(config.MONGO_URL);
  }
  return await KvStore.open(onDeploy ? undefined : config.KV_PATH);
}

/** Opens the store at a location another isolate gave (a worker reading a dataset for itself). */
export async function openLocation(location: StoreLocation): Promise<Store> {
  if (location.kind === "mongo") {
    const { MongoStore } = await import("./mongo.ts");
    return await MongoStore.connect(location.url);
  }
  return await KvStore.open(location.path);
}
