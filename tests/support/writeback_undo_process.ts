/**
 * A process that undoes one spatial write-back, for the kill test: the real undo (undoWriteback) over the
 * store named by STORE ("kv:<path>" or "mongo:<url>"), with TESSERA_DB, TASK and WRITEBACK_ID. Each
 * bulk update of the undo is held back DELAY_MS and then reported as a line `page` on stdout, so the
 * test can kill the process mid-undo.
 */
import { KvStore } from "../../store/kv.ts";
import { MongoStore } from "../../store/mongo.ts";
import type { Store } from "../../store/store.ts";
import { loadConfig } from "../../config.ts";
import { undoWriteback } from "../../services/mitigation/writeback_undo.ts";

const env = (k: string) => Deno.env.get(k) ?? "";
const spec = env("STORE");
const real: Store = spec.startsWith("mongo:")
  ? await MongoStore.connect(spec.slice(6))
  : await KvStore.open(spec.slice(3));
const delay = Number(env("DELAY_MS") || 0);
const store = new Proxy(real, {
  get(target, key) {
    const value = Reflect.get(target, key);
    if (key !== "updateFields") return typeof value === "function" ? value.bind(target) : value;
    return async (...args: Parameters<Store["updateFields"]>) => {
      await new Promise((r) => setTimeout(r, delay));
      const r = await target.updateFields(...args);
      console.log("page");
      return r;
    };
  },
});
const config = loadConfig({
  LOG_LEVEL: "silent",
  AUTH_MODE: "off",
  TESSERA_DB: env("TESSERA_DB"),
  IMPORT_LEASE_SECONDS: env("LEASE_SECONDS"),
});
const who = { sub: "steward-1", username: "sam" };
await undoWriteback({ store, config }, {
  collectionName: env("TASK"),
  writebackId: env("WRITEBACK_ID"),
  who,
});
console.log("done");
await real.close();
